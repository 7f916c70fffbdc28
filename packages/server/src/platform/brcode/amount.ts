import { BrCodeError } from './errors.js';
import { MAX_AMOUNT_CHARS } from './limits.js';

/**
 * Formats an amount in reais for field 54: two decimals, `.` separator, no thousands separator
 * (22 -> "22.00"). Rejects amounts that are not finite and positive, that carry more than two
 * decimals (0.1 + 0.2 is rejected: round it first), or that need more than 13 characters.
 */
export function formatAmount(amount: number): string {
  if (!Number.isFinite(amount) || amount <= 0) {
    throw new BrCodeError(`amount must be a positive number, got ${amount}`);
  }
  if (amount >= 1e10)
    throw new BrCodeError(`amount ${amount} needs more than ${MAX_AMOUNT_CHARS} characters`);
  const text = amount.toFixed(2);
  if (Number(text) !== amount) throw new BrCodeError(`amount ${amount} has more than two decimals`);
  return text;
}

/** Reads field 54: digits with an optional `.` and up to two decimals, greater than zero. */
export function parseAmount(text: string): number {
  if (text.length > MAX_AMOUNT_CHARS || !/^\d+(?:\.\d{1,2})?$/.test(text)) {
    throw new BrCodeError(`field 54 (amount) is not a decimal amount: "${text}"`);
  }
  const amount = Number(text);
  if (amount <= 0) throw new BrCodeError('field 54 (amount) must be greater than zero');
  return amount;
}
