import type { CardProvider } from '../card-provider.js';
import { installmentTable } from '../installment-table.js';
import { cancelCharge } from './pagarme-charges.js';
import { readPagarmeNotification } from './pagarme-notification.js';
import { createOrder, getOrder } from './pagarme-orders.js';
import { orderRequest } from './pagarme-order-request.js';
import { orderOutcome, refundOutcome } from './pagarme-outcome.js';
import { createPagarmeTransport } from './pagarme-transport.js';

export const PAGARME_BASE_URL = 'https://api.pagar.me/core/v5';

export interface PagarmeSettings {
  /** `sk_…` or `sk_test_…`, opened from its sealed form. */
  secretKey: string;
  /** `pk_…` or `pk_test_…`: what the page's `tokenizecard.js` is given. */
  publicKey: string;
  /** Default PAGARME_BASE_URL; no trailing slash. */
  baseUrl: string;
  /** Extra trust for the API's certificate; null: Node's bundled CAs. */
  caPem: string | null;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  /** STOREFRONT_PSP_ALLOWED_HOSTS, as parseAllowedEndpoints keeps it. */
  allowedHosts: ReadonlySet<string>;
}

/**
 * The card port over Pagar.me's Core API v5 for one store's account: an order per payment (`POST
 * /orders` with the derived Idempotency-Key), read back with `GET /orders/{id}`, refunded with
 * `DELETE /charges/{charge_id}`; installments come from the store's own price table, since
 * Pagar.me charges what it is told (the total with interest).
 */
export function pagarmeProvider(settings: PagarmeSettings): CardProvider {
  const transport = createPagarmeTransport({
    baseUrl: settings.baseUrl.replace(/\/+$/, ''),
    secretKey: settings.secretKey,
    caPem: settings.caPem,
    connectTimeoutMs: settings.connectTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    allowedHosts: settings.allowedHosts,
  });
  return {
    name: 'pagarme',
    publicKey: settings.publicKey,
    async createPayment(request) {
      return orderOutcome(await createOrder(transport, orderRequest(request), request.idempotencyKey));
    },
    async getPayment(ref) {
      return orderOutcome(await getOrder(transport, ref.pspId));
    },
    async refund(ref, request) {
      if (ref.pspChargeId === null) {
        // Every Pagar.me payment this adapter made has a charge: a missing one is a caller's bug.
        throw new Error(`Pagar.me order ${ref.pspId} has no charge id to refund`);
      }
      return refundOutcome(
        await cancelCharge(transport, ref.pspChargeId, request.amountCents, request.idempotencyKey),
      );
    },
    async installmentOptions(query) {
      return installmentTable(query.amountCents, query.policy);
    },
    readNotification: readPagarmeNotification,
    close: () => transport.close(),
  };
}
