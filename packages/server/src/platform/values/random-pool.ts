import { randomBytes, randomFillSync } from 'node:crypto';

/**
 * Bytes from the CSPRNG, drawn from a pooled buffer that is refilled when used up, as Node's own
 * `randomUUID` does. In the running service a `randomBytes` call cost ~9 µs (a loop alone shows 2),
 * and a purchase made several: an order's token, the IV that seals it, each page's nonce. Every
 * byte is handed out once; a refill overwrites the whole pool.
 */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
let offset = POOL_BYTES;

function reserve(count: number): number {
  if (offset + count > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const at = offset;
  offset += count;
  return at;
}

export function randomByte(): number {
  return pool[reserve(1)]!;
}

/** `count` random bytes in a buffer of their own (a copy: the pool's bytes never leave it). */
export function pooledRandomBytes(count: number): Buffer {
  if (count > POOL_BYTES / 8) return randomBytes(count);
  const at = reserve(count);
  return Buffer.from(pool.subarray(at, at + count));
}
