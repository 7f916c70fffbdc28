import { createHash, randomBytes } from 'node:crypto';

/** A random token for a URL or cookie (`bytes` of entropy, base64url) and the SHA-256 kept in its place. */
export function newSecretToken(bytes: number): { token: string; hash: string } {
  const token = randomBytes(bytes).toString('base64url');
  return { token, hash: hashSecretToken(token) };
}

export const hashSecretToken = (token: string): string =>
  createHash('sha256').update(token, 'utf8').digest('hex');
