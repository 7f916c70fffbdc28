/**
 * Brazilian taxpayer numbers for a Pix charge's `customer.document`: CPF (people, 11 digits) and
 * CNPJ (companies, 14 characters), validated by their two check digits (mod 11).
 *
 * Accepted input: the bare characters (`12345678909`, `11222333000181`) or the usual mask
 * (`123.456.789-09`, `11.222.333/0001-81`); surrounding spaces are ignored, nothing else is.
 * CNPJ may be alphanumeric (Receita Federal, IN RFB 2.229/2024, issued from July 2026): the first 12
 * characters are `0-9A-Z` (lowercase accepted and upper-cased), the last two are digits, and each
 * character counts as its ASCII code minus 48. Repeated-digit numbers (`00000000000`, ...) are
 * rejected even though their check digits work out.
 */

export type CustomerDocumentKind = 'cpf' | 'cnpj';

export type CustomerDocumentResult =
  { valid: true; kind: CustomerDocumentKind; normalized: string } | { valid: false; reason: string };

const CPF_MASKED = /^\d{3}\.\d{3}\.\d{3}-\d{2}$/;
const CNPJ_MASKED = /^[0-9A-Z]{2}\.[0-9A-Z]{3}\.[0-9A-Z]{3}\/[0-9A-Z]{4}-\d{2}$/;
const CPF_BARE = /^\d{11}$/;
const CNPJ_BARE = /^[0-9A-Z]{12}\d{2}$/;

/** Checks shape and check digits; on success returns the kind and the bare upper-case characters. */
export function validateCustomerDocument(input: string): CustomerDocumentResult {
  const text = input.trim().toUpperCase();
  const kind = kindByShape(text);
  if (kind === null) {
    return { valid: false, reason: 'must be a CPF (11 digits) or CNPJ (14 characters), bare or masked' };
  }
  const normalized = text.replace(/[./-]/g, '');
  if (/^(.)\1*$/.test(normalized)) return { valid: false, reason: `${kind} cannot be one repeated digit` };
  const ok = kind === 'cpf' ? hasValidCheckDigits(normalized, 10) : hasValidCheckDigits(normalized, 9);
  if (!ok) return { valid: false, reason: `${kind} check digits do not match` };
  return { valid: true, kind, normalized };
}

function kindByShape(text: string): CustomerDocumentKind | null {
  if (CPF_BARE.test(text) || CPF_MASKED.test(text)) return 'cpf';
  if (CNPJ_BARE.test(text) || CNPJ_MASKED.test(text)) return 'cnpj';
  return null;
}

/** True for a valid CPF or CNPJ; see `validateCustomerDocument`. */
export function isValidCustomerDocument(input: string): boolean {
  return validateCustomerDocument(input).valid;
}

/**
 * Both check digits, mod 11. CPF weights run from 10 (then 11) down to 2; CNPJ weights cycle
 * 2..9 from the right, which is the same as `maxWeight` 9 with wrap-around.
 */
function hasValidCheckDigits(value: string, maxWeight: 9 | 10): boolean {
  const body = value.slice(0, -2);
  const first = checkDigit(body, maxWeight);
  const second = checkDigit(body + first, maxWeight);
  return value.endsWith(`${first}${second}`);
}

function checkDigit(body: string, maxWeight: 9 | 10): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const fromRight = body.length - i; // 1-based position from the right
    const weight = maxWeight === 10 ? fromRight + 1 : ((fromRight - 1) % 8) + 2;
    sum += (body.charCodeAt(i) - 48) * weight;
  }
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}
