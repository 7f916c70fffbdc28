import type { InstallmentOption, InstallmentPolicy } from './card-provider.js';

/** Cents half-up, on a value already in cents. */
const halfUp = (cents: number): number => Math.floor(cents + 0.5 + 1e-9);

/**
 * The store's installment options for an amount: up to `interestFreeInstallments` the amount is
 * split evenly (cents half-up) and the total is the amount; past it the price table (Tabela Price)
 * at the monthly rate, `installment = amount·i / (1 − (1+i)^−n)`, total = installment × n. A rate of
 * 0 makes every option interest-free. An option whose installment is under the minimum is not
 * offered, except 1x, which always is. Simulated and Pagar.me payments use this table; Mercado Pago
 * answers its own.
 */
export function installmentTable(amountCents: number, policy: InstallmentPolicy): InstallmentOption[] {
  const options: InstallmentOption[] = [];
  const rate = policy.monthlyInterestRate / 100;
  for (let n = 1; n <= policy.maxInstallments; n++) {
    const interestFree = n <= policy.interestFreeInstallments || rate === 0;
    const installmentCents = interestFree
      ? halfUp(amountCents / n)
      : halfUp((amountCents * rate) / (1 - Math.pow(1 + rate, -n)));
    if (n > 1 && installmentCents < policy.minInstallmentCents) continue;
    const totalCents = interestFree ? amountCents : installmentCents * n;
    options.push({ installments: n, installmentCents, totalCents, interestFree });
  }
  return options;
}

/** The option of `n` installments, or undefined when the table does not offer it. */
export function installmentOption(
  amountCents: number,
  policy: InstallmentPolicy,
  n: number,
): InstallmentOption | undefined {
  return installmentTable(amountCents, policy).find((option) => option.installments === n);
}
