import { randomFillSync, randomUUID } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Random bytes from the CSPRNG, drawn from a pooled buffer: a `randomBytes` call per id was ~5% of a
 * GET's CPU (every request gets an id). The pool is refilled from the CSPRNG when used up.
 */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function nextRandomByte(): number {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  return pool[poolOffset++]!;
}

/** Uniform base62 characters: bytes >= 248 are rejected so no character is favoured. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
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
