import type { SecretBox } from '../../../platform/values/secret-box.js';
import type { CardProvider } from '../card-provider.js';
import { ProviderError } from '../provider-errors.js';
import { cardNotificationUrl, modeName } from './card-provider-settings.js';
import type { CardProvidersTable } from './card-provider-settings.js';

/**
 * What `card-provider show` prints: never a secret. The notification URL is printed whole: the
 * seller pastes it into the PSP's panel, and its token only lets a caller make us read a payment back.
 */
export function describeCardProvider(box: SecretBox, row: CardProvidersTable, publicUrl: string) {
  return {
    store_id: row.store_id,
    mode: modeName(row.livemode === 1),
    provider: row.provider,
    public_key: row.public_key,
    base_url: row.base_url,
    webhook_url: cardNotificationUrl(box, row, publicUrl),
  };
}

/** Mercado Pago's documented test Mastercard (5031 4332 1540 6351): a BIN it answers options for. */
const CHECK_BIN = '503143';

/** A Pagar.me order id no order has: its 404 proves the key was accepted. */
const NO_SUCH_ORDER = 'or_storefrontcheck0';

/**
 * One authenticated read at the PSP, through the port, proving the URL, the TLS trust and the
 * secret: Mercado Pago's installment options for a BIN (`GET /v1/payment_methods/installments`),
 * Pagar.me's `GET /orders/{id}` of an order that does not exist, whose 404 comes only after the
 * secret key was accepted (a wrong one is 401). Throws ProviderError otherwise.
 */
export async function checkCardProvider(provider: CardProvider): Promise<void> {
  if (provider.name === 'mercadopago') {
    await provider.installmentOptions({
      amountCents: 10_000,
      bin: CHECK_BIN,
      policy: {
        maxInstallments: 12,
        interestFreeInstallments: 1,
        monthlyInterestRate: 0,
        minInstallmentCents: 0,
      },
    });
    return;
  }
  if (provider.name === 'pagarme') {
    try {
      await provider.getPayment({ pspId: NO_SUCH_ORDER, pspChargeId: null });
    } catch (error) {
      if (error instanceof ProviderError && error.pspStatus === 404) return;
      throw error;
    }
  }
}
