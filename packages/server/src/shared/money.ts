/** Money is kept as integer cents; the API speaks BRL numbers with at most two decimals (DESIGN §1). */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

export function fromCents(cents: number): number {
  return cents / 100;
}

/** True when the number has at most two decimals, tolerant of binary float noise (0.1 + 0.2). */
export function hasAtMostTwoDecimals(amount: number): boolean {
  return Number.isFinite(amount) && Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6;
}
