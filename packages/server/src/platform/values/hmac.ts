import { createHmac, timingSafeEqual } from 'node:crypto';

export function hmacSha256(key: string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

/** Constant-time equality for secrets and signatures of any length. */
export function safeEqual(a: Buffer | string, b: Buffer | string): boolean {
  const left = typeof a === 'string' ? Buffer.from(a, 'utf8') : a;
  const right = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  return left.length === right.length && timingSafeEqual(left, right);
}
