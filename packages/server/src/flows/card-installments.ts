import type { StoresTable } from '../domain/stores/stores.js';
import type { InstallmentOption, InstallmentPolicy } from '../domain/payments/card-provider.js';
import type { PaymentProviders, ProviderScope } from '../domain/payments/payment-providers.js';
import { fromCents } from '../platform/values/money.js';

/** The store's installment terms as the price table reads them (the rate is kept in basis points). */
export function installmentPolicyOf(
  store: Pick<
    StoresTable,
    | 'card_max_installments'
    | 'card_interest_free_installments'
    | 'card_monthly_interest_bp'
    | 'card_min_installment_cents'
  >,
): InstallmentPolicy {
  return {
    maxInstallments: store.card_max_installments,
    interestFreeInstallments: store.card_interest_free_installments,
    monthlyInterestRate: store.card_monthly_interest_bp / 100,
    minInstallmentCents: store.card_min_installment_cents,
  };
}

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
