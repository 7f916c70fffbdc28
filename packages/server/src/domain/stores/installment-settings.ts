import { invalidRequest } from '../../platform/http/api-error.js';
import { formatBrl, fromCents, isWholeCents, toCents } from '../../platform/values/money.js';
import type { InstallmentPolicy } from '../kernel/installment-policy.js';
import type { StoresTable } from './stores.js';

/**
 * The store's card installment terms (`card` of the store resource). Limits: up to 12 installments
 * (what Brazilian card networks offer), a monthly rate of 0 to 10 % in hundredths (kept as basis
 * points, exact in both databases), and a minimum installment of R$ 1,00 to R$ 1.000.000,00 (the
 * range of a card payment's own amount: a smaller installment is no payment, a larger one than any
 * amount would offer nothing but 1x).
 */
export const INSTALLMENT_LIMITS = {
  maxInstallments: 12,
  maxMonthlyRate: 10,
  minInstallmentAmount: { minimum: 1, maximum: 1_000_000 },
} as const;

/** What the API and the dashboard send; only the fields given change. */
export interface InstallmentSettingsInput {
  max_installments?: number | undefined;
  interest_free_installments?: number | undefined;
  monthly_interest_rate?: number | undefined;
  min_installment_amount?: number | undefined;
}

/** The store's terms as the price table reads them (the rate in percent: 299 basis points → 2.99). */
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

/** The `card` object of the store resource. */
export function installmentSettingsOf(store: StoresTable) {
  return {
    max_installments: store.card_max_installments,
    interest_free_installments: store.card_interest_free_installments,
    monthly_interest_rate: store.card_monthly_interest_bp / 100,
    min_installment_amount: fromCents(store.card_min_installment_cents),
  };
}

const refuse = (field: keyof InstallmentSettingsInput, rule: string) =>
  invalidRequest(`Invalid parameter card.${field}: ${rule}.`, `card.${field}`);

function integerIn(field: keyof InstallmentSettingsInput, value: number, max: number): number {
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw refuse(field, `must be a whole number from 1 to ${max}`);
  return value;
}

/**
 * The store columns a change of terms sets, checked as a whole: interest-free installments past the
 * maximum (sent, or kept from before) are refused, naming `card.interest_free_installments`. Throws
 * 400 invalid_request naming the field; the API's schema checks the same ranges first.
 */
export function installmentChanges(
  store: StoresTable,
  input: InstallmentSettingsInput,
): Partial<StoresTable> {
  const set: Partial<StoresTable> = {};
  if (input.max_installments !== undefined)
    set.card_max_installments = integerIn(
      'max_installments',
      input.max_installments,
      INSTALLMENT_LIMITS.maxInstallments,
    );
  if (input.interest_free_installments !== undefined)
    set.card_interest_free_installments = integerIn(
      'interest_free_installments',
      input.interest_free_installments,
      INSTALLMENT_LIMITS.maxInstallments,
    );
  const rate = input.monthly_interest_rate;
  if (rate !== undefined) {
    if (!isWholeCents(rate) || rate < 0 || rate > INSTALLMENT_LIMITS.maxMonthlyRate)
      throw refuse(
        'monthly_interest_rate',
        `must be a percentage from 0 to ${INSTALLMENT_LIMITS.maxMonthlyRate} with at most 2 decimal places`,
      );
    set.card_monthly_interest_bp = toCents(rate);
  }
  const minimum = input.min_installment_amount;
  if (minimum !== undefined) {
    const { minimum: low, maximum: high } = INSTALLMENT_LIMITS.minInstallmentAmount;
    if (!isWholeCents(minimum) || minimum < low || minimum > high)
      throw refuse(
        'min_installment_amount',
        `must be an amount from ${low.toFixed(2)} to ${high.toFixed(2)} with at most 2 decimal places`,
      );
    set.card_min_installment_cents = toCents(minimum);
  }
  const max = set.card_max_installments ?? store.card_max_installments;
  const interestFree = set.card_interest_free_installments ?? store.card_interest_free_installments;
  if (interestFree > max)
    throw refuse(
      'interest_free_installments',
      `${interestFree} interest-free installments exceed max_installments ${max}; send both to change them together`,
    );
  return set;
}

/** "até 12x, 1x sem juros, 2,99% ao mês, parcela mínima R$ 5,00": the terms as the audit log words them. */
export function describeInstallmentPolicy(policy: InstallmentPolicy): string {
  const rate = policy.monthlyInterestRate.toFixed(2).replace('.', ',');
  return `até ${policy.maxInstallments}x, ${policy.interestFreeInstallments}x sem juros, ${rate}% ao mês, parcela mínima ${formatBrl(policy.minInstallmentCents)}`;
}
