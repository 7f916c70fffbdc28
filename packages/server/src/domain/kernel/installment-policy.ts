/**
 * A store's installment terms (its `card` settings), shared by the store that keeps them and the card
 * payment port whose price table applies them.
 */
export interface InstallmentPolicy {
  maxInstallments: number;
  interestFreeInstallments: number;
  /** Percent a month, e.g. 2.99. */
  monthlyInterestRate: number;
  minInstallmentCents: number;
}
