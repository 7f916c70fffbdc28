import { randomBytes } from 'node:crypto';

/** Crockford's base32 (no I, L, O, U): unambiguous when read aloud or typed from a receipt. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const LENGTH = 8;

/**
 * A new product code such as `PRD-7K3M9QXA`: 40 random bits, so collisions within a store are rare;
 * the unique index on (store_id, codigo) catches the rare one and the creation is retried.
 */
export function newProductCode(): string {
  // 256 is a multiple of 32, so `byte % 32` favours no character.
  const chars = [...randomBytes(LENGTH)].map((byte) => ALPHABET[byte % ALPHABET.length]);
  return `PRD-${chars.join('')}`;
}
