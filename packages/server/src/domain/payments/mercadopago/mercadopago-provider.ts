import type {
  CardChargeRequest,
  CardProvider,
  InstallmentOption,
  InstallmentQuery,
} from '../card-provider.js';
import { installmentTable } from '../installment-table.js';
import { ProviderError } from '../provider-errors.js';
import { mercadoPagoClient } from './mercadopago-client.js';
import type { MercadoPagoClient } from './mercadopago-client.js';
import { readMercadoPagoNotification } from './mercadopago-notification.js';
import { outcomeOf, refundOutcomeOf } from './mercadopago-outcome.js';
import { createMercadoPagoTransport } from './mercadopago-transport.js';
import type { MpInstallments, MpPaymentRequest } from './mercadopago-types.js';

export interface MercadoPagoSettings {
  accessToken: string;
  /** The browser-side key Mercado Pago's script (`sdk.mercadopago.com/js/v2`) needs. */
  publicKey: string;
  /** The application's secret signature for webhooks; null: notifications are not signed-checked. */
  webhookSecret: string | null;
  /** Default `https://api.mercadopago.com`. */
  baseUrl: string;
  caPem: string | null;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
  allowedHosts: ReadonlySet<string>;
}

/** Mercado Pago cuts what it shows on the card statement at 13 characters; we cut first, on our terms. */
const STATEMENT_DESCRIPTOR_LENGTH = 13;

/** Cents → reais as the JSON number Mercado Pago reads (`12345` → `123.45`). */
const reais = (cents: number): number => Math.round(cents) / 100;

/** The card port over Mercado Pago's Checkout API (`/v1/payments`), for one store's account. */
export function mercadoPagoProvider(settings: MercadoPagoSettings): CardProvider {
  const client = mercadoPagoClient(
    createMercadoPagoTransport({
      accessToken: settings.accessToken,
      baseUrl: settings.baseUrl,
      caPem: settings.caPem,
      connectTimeoutMs: settings.connectTimeoutMs,
      requestTimeoutMs: settings.requestTimeoutMs,
      allowedHosts: settings.allowedHosts,
    }),
  );
  return {
    name: 'mercadopago',
    publicKey: settings.publicKey,
    async createPayment(request) {
      return outcomeOf(await client.createPayment(paymentBody(request), request.idempotencyKey));
    },
    async getPayment(ref) {
      return outcomeOf(await client.getPayment(ref.pspId));
    },
    async refund(ref, request) {
      return refundOutcomeOf(
        await client.refund(ref.pspId, reais(request.amountCents), request.idempotencyKey),
      );
    },
    installmentOptions: (query) => installmentOptions(client, query),
    readNotification: (notification) => readMercadoPagoNotification(notification, settings.webhookSecret),
    close: () => client.close(),
  };
}

/**
 * The goods' price goes as `transaction_amount`: Mercado Pago adds its own installment interest on
 * the buyer's side, so the store's interest table is not applied here (`totalCents` is unused).
 */
function paymentBody(request: CardChargeRequest): MpPaymentRequest {
  const firstName = request.payer.name.trim().split(/\s+/)[0] ?? request.payer.name;
  return {
    transaction_amount: reais(request.amountCents),
    installments: request.installments,
    token: request.token,
    ...(request.brand !== null && { payment_method_id: request.brand }),
    // Mercado Pago's issuer ids are numbers; the page's script hands them over as text.
    ...(request.issuerId !== null && {
      issuer_id: /^\d+$/.test(request.issuerId) ? Number(request.issuerId) : request.issuerId,
    }),
    payer: {
      email: request.payer.email,
      first_name: firstName,
      identification: { type: request.payer.documentType, number: request.payer.document },
    },
    external_reference: request.paymentId,
    ...(request.notificationUrl !== null && { notification_url: request.notificationUrl }),
    three_d_secure_mode: 'optional',
    statement_descriptor: [...request.statementDescriptor].slice(0, STATEMENT_DESCRIPTOR_LENGTH).join(''),
    ...(request.description !== null && { description: request.description }),
  };
}

/**
 * With a BIN, Mercado Pago's own options for that card (its rates, the seller's interest-free offers
 * set in its panel), capped at the store's maximum; a BIN it knows no credit card for gets none.
 * Without one (before the buyer typed the card), the store's price table stands in, so the page can
 * show indicative options; the ones charged are those Mercado Pago answers once the BIN is known.
 */
async function installmentOptions(
  client: MercadoPagoClient,
  query: InstallmentQuery,
): Promise<InstallmentOption[]> {
  if (query.bin === null) return installmentTable(query.amountCents, query.policy);
  const answer = await client.installments(reais(query.amountCents), query.bin);
  if (!Array.isArray(answer)) {
    throw new ProviderError('Mercado Pago answered the installment options with something not a list.');
  }
  const entry: MpInstallments | undefined =
    answer.find((e) => e?.payment_type_id === 'credit_card') ?? answer[0];
  if (!entry) return [];
  if (!Array.isArray(entry.payer_costs)) {
    throw new ProviderError('Mercado Pago answered installment options without payer_costs.');
  }
  return entry.payer_costs
    .map((cost) => {
      if (
        !cost ||
        !Number.isInteger(cost.installments) ||
        typeof cost.installment_amount !== 'number' ||
        typeof cost.total_amount !== 'number' ||
        typeof cost.installment_rate !== 'number'
      ) {
        throw new ProviderError('Mercado Pago answered a malformed installment option.');
      }
      return {
        installments: cost.installments,
        installmentCents: Math.round(cost.installment_amount * 100),
        totalCents: Math.round(cost.total_amount * 100),
        interestFree: cost.installment_rate === 0,
      };
    })
    .filter((option) => option.installments <= query.policy.maxInstallments)
    .sort((a, b) => a.installments - b.installments);
}
