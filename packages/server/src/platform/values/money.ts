/** Money is kept as integer cents; the API speaks BRL numbers with at most two decimals. */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

export function fromCents(cents: number): number {
  return cents / 100;
}

/**
 * True when the amount is exactly a whole number of cents as JSON carries it: 19.99 passes; 19.999,
 * 19.99000000001 and 5e-324 do not. A tolerance check (ajv's `multipleOf` with a precision) accepts
 * the last two, and the stored cents would silently round them.
 */
export function isWholeCents(amount: number): boolean {
  return Number.isFinite(amount) && fromCents(toCents(amount)) === amount;
}

const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/**
 * Amounts already written: pages show the same few prices over and over, and `Intl` formatting was
 * ~0.9% of a page purchase's CPU (a profile of the running service). Emptied when full.
 */
const written = new Map<number, string>();
const MAX_WRITTEN = 1000;

/** `R$ 1.234,56`, as Brazilian buyers read prices; a plain space after `R$` (Intl puts a no-break one). */
export function formatBrl(cents: number): string {
  let text = written.get(cents);
  if (text === undefined) {
    text = BRL.format(fromCents(cents)).replace(/\s/u, ' ');
    if (written.size >= MAX_WRITTEN) written.clear();
    written.set(cents, text);
  }
  return text;
}
