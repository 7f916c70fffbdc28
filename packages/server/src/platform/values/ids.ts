import { randomUUID } from 'node:crypto';
import { randomByte } from './random-pool.js';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Uniform base62 characters: bytes >= 248 are rejected so no character is favoured. The bytes come
 * from the pool: a `randomBytes` call per id was ~5% of a GET's CPU (every request gets an id).
 */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export function newUuid(): string {
  return randomUUID();
}

/** Ids like `evt_…`, `pix_…`, `req_…`: a readable prefix and 24 random characters. */
export function prefixedId(prefix: string): string {
  return `${prefix}_${randomBase62(24)}`;
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
