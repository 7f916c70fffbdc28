import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';
import { pooledRandomBytes } from './random-pool.js';

/**
 * Encryption at rest for short secrets (webhook signing secrets), keyed from STOREFRONT_SECRET.
 *
 * - Cipher: AES-256-GCM, a fresh random 96-bit IV per value, 128-bit tag.
 * - Key: HKDF-SHA256(ikm = STOREFRONT_SECRET as UTF-8, salt = empty, info = KEY_INFO), 32 bytes.
 *   HKDF (not scrypt) because STOREFRONT_SECRET is meant to be a long random value, not a password;
 *   the distinct `info` label keeps this key separate from any other key derived from the same secret
 *   (cursor signing). A weak, human-chosen STOREFRONT_SECRET is therefore a configuration error.
 * - Output: `v1.<iv>.<tag>.<ciphertext>`, each part base64url. The version prefix leaves room to rotate
 *   the scheme or the key later.
 * - Optional associated data (e.g. the endpoint id) binds a value to its row, so a ciphertext copied
 *   to another row does not decrypt there.
 */

export interface SecretBox {
  seal(plaintext: string, associatedData?: string): string;
  /** Throws SecretBoxError when the value is malformed, tampered with, or sealed under another key. */
  open(sealed: string, associatedData?: string): string;
}

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

const VERSION = 'v1';
const KEY_INFO = 'storefront/secret-box/v1/aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function createSecretBox(storefrontSecret: string): SecretBox {
  if (storefrontSecret.length === 0) throw new SecretBoxError('STOREFRONT_SECRET is empty');
  const key = Buffer.from(
    hkdfSync('sha256', Buffer.from(storefrontSecret, 'utf8'), Buffer.alloc(0), KEY_INFO, 32),
  );

  return {
    seal(plaintext, associatedData) {
      const iv = pooledRandomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      if (associatedData !== undefined) cipher.setAAD(Buffer.from(associatedData, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
      return [VERSION, ...parts].join('.');
    },

    open(sealed, associatedData) {
      const [version, iv64, tag64, ct64, ...rest] = sealed.split('.');
      if (
        version !== VERSION ||
        iv64 === undefined ||
        tag64 === undefined ||
        ct64 === undefined ||
        rest.length
      ) {
        throw new SecretBoxError('not a sealed value');
      }
      const iv = Buffer.from(iv64, 'base64url');
      const tag = Buffer.from(tag64, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('not a sealed value');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAuthTag(tag);
        if (associatedData !== undefined) decipher.setAAD(Buffer.from(associatedData, 'utf8'));
        return Buffer.concat([decipher.update(Buffer.from(ct64, 'base64url')), decipher.final()]).toString(
          'utf8',
        );
      } catch {
        throw new SecretBoxError('sealed value failed authentication (tampered, or another key)');
      }
    },
  };
}
