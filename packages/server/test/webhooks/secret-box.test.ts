import { describe, it, expect } from 'vitest';
import { createSecretBox, SecretBoxError } from '../../src/platform/values/secret-box.js';

const box = createSecretBox('a-long-random-storefront-secret-0123456789abcdef');
const secret = 'whsec_0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0';

/** Flips one bit of the base64url part at `index` (1 iv, 2 tag, 3 ciphertext). */
function flip(sealed: string, index: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[index] ?? '', 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 1;
  parts[index] = bytes.toString('base64url');
  return parts.join('.');
}

describe('secret box', () => {
  it('round-trips and never reveals the plaintext', () => {
    const sealed = box.seal(secret);
    expect(sealed).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(box.open(sealed)).toBe(secret);
    expect(box.open(box.seal(''))).toBe('');
    expect(box.open(box.seal('Violão ✓'))).toBe('Violão ✓');
  });

  it('uses a fresh IV each time', () => {
    expect(box.seal(secret)).not.toBe(box.seal(secret));
  });

  it('opens with another instance built from the same STOREFRONT_SECRET', () => {
    const again = createSecretBox('a-long-random-storefront-secret-0123456789abcdef');
    expect(again.open(box.seal(secret))).toBe(secret);
  });

  it('detects tampering with the IV, tag or ciphertext', () => {
    const sealed = box.seal(secret);
    for (const index of [1, 2, 3]) {
      expect(() => box.open(flip(sealed, index))).toThrow(SecretBoxError);
    }
  });

  it('refuses malformed values', () => {
    const sealed = box.seal(secret);
    for (const bad of ['', 'v1', secret, sealed.replace(/^v1/, 'v2'), `${sealed}.x`, sealed.slice(0, -4)]) {
      expect(() => box.open(bad), bad).toThrow(SecretBoxError);
    }
  });

  it('fails with the wrong key', () => {
    const other = createSecretBox('another-long-random-storefront-secret-fedcba987654');
    expect(() => other.open(box.seal(secret))).toThrow(/failed authentication/);
  });

  it('binds a value to its associated data', () => {
    const sealed = box.seal(secret, 'we_1');
    expect(box.open(sealed, 'we_1')).toBe(secret);
    expect(() => box.open(sealed, 'we_2')).toThrow(SecretBoxError);
    expect(() => box.open(sealed)).toThrow(SecretBoxError);
  });

  it('refuses an empty STOREFRONT_SECRET', () => {
    expect(() => createSecretBox('')).toThrow(SecretBoxError);
  });
});
