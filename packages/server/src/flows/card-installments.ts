import type { StoresTable } from '../domain/stores/stores.js';
import type { InstallmentOption } from '../domain/payments/card-provider.js';
import { installmentPolicyOf } from '../domain/stores/installment-settings.js';
import type { PaymentProviders, ProviderScope } from '../domain/payments/payment-providers.js';
import { fromCents } from '../platform/values/money.js';

/** Kept by the stores module; the card flows read it from here. */
export { installmentPolicyOf };

/** The `installment_options` object the API and the purchase page answer. */
export interface InstallmentOptions {
  object: 'installment_options';
  amount: number;
  options: Array<{
    installments: number;
    installment_amount: number;
    total_amount: number;
    interest_free: boolean;
  }>;
}

/**
 * The options a buyer may choose for an amount: the store's price table (simulated, Pagar.me) or
 * the PSP's own for the amount and BIN (Mercado Pago), never past the store's maximum.
 */
export async function installmentOptionsFor(
  payments: PaymentProviders,
  scope: ProviderScope,
  store: StoresTable,
  amountCents: number,
  bin: string | null,
): Promise<InstallmentOptions> {
  const provider = await payments.card(scope);
  const options = await provider.installmentOptions({ amountCents, bin, policy: installmentPolicyOf(store) });
  return {
    object: 'installment_options',
    amount: fromCents(amountCents),
    options: options.map(toAnswer),
  };
}

const toAnswer = (option: InstallmentOption) => ({
  installments: option.installments,
  installment_amount: fromCents(option.installmentCents),
  total_amount: fromCents(option.totalCents),
  interest_free: option.interestFree,
});
