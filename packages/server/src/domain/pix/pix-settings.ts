import { createHash } from 'node:crypto';
import { ApiError } from '../../platform/http/api-error.js';
import { foldAndTruncate, foldToAscii } from '../../platform/brcode/index.js';
import type { PixReceiver } from '../../platform/brcode/index.js';
import { normalizePixKey } from './pix-key.js';

const MAX_MERCHANT_NAME = 25;
const MAX_MERCHANT_CITY = 15;
export const DEFAULT_MERCHANT_CITY = 'SAO PAULO';
const FALLBACK_MERCHANT_NAME = 'LOJA';

/**
 * The key test charges carry: a well-formed random key (EVP, UUID v4 layout) derived from the store
 * id, stable per store. Test charges never carry the store's real key, so a test QR code scanned by a
 * real bank app cannot move money (test charges are simulated).
 */
export function testPixKey(storeId: string): string {
  const hex = createHash('sha256').update(`storefront:test-pix-key:${storeId}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The store's columns a receiver is made of. */
export interface ReceivingStore {
  id: string;
  name: string;
  pix_key: string | null;
  merchant_name: string | null;
  merchant_city: string | null;
}

/**
 * The receiver of a store's charges in one mode. Unset settings have defaults, so a new store can
 * charge in test mode at once: the name comes from the store name (folded to ASCII, cut to 25), the
 * city is São Paulo. Live charges need the store's own key.
 */
export function pixReceiverFor(store: ReceivingStore, livemode: boolean): PixReceiver {
  const pixKey = livemode ? store.pix_key : testPixKey(store.id);
  if (pixKey === null) {
    throw new ApiError(
      400,
      'invalid_request',
      'This store has no Pix key for live charges. Set one with `storefront stores update <store_id> --pix-key <key>`.',
    );
  }
  return {
    pixKey,
    merchantName:
      store.merchant_name ?? (foldAndTruncate(store.name, MAX_MERCHANT_NAME) || FALLBACK_MERCHANT_NAME),
    merchantCity: store.merchant_city ?? DEFAULT_MERCHANT_CITY,
  };
}

/** Settings as the CLI receives them; each is checked and stored the way the BR Code will show it. */
export interface PixSettingsInput {
  pixKey?: string | undefined;
  merchantName?: string | undefined;
  merchantCity?: string | undefined;
}

export interface PixSettings {
  pixKey?: string;
  merchantName?: string;
  merchantCity?: string;
}

/**
 * Name and city are folded to ASCII (what payers' apps show) and refused, not cut, when too long,
 * so the merchant decides what is shown. Throws an Error naming the bad option.
 */
export function normalizePixSettings(input: PixSettingsInput): PixSettings {
  const settings: PixSettings = {};
  if (input.pixKey !== undefined) {
    try {
      settings.pixKey = normalizePixKey(input.pixKey);
    } catch (error) {
      throw new Error(`--pix-key: ${(error as Error).message}`);
    }
  }
  if (input.merchantName !== undefined) {
    settings.merchantName = boundedText(input.merchantName, MAX_MERCHANT_NAME, '--merchant-name');
  }
  if (input.merchantCity !== undefined) {
    settings.merchantCity = boundedText(input.merchantCity, MAX_MERCHANT_CITY, '--merchant-city');
  }
  return settings;
}

function boundedText(text: string, max: number, option: string): string {
  const folded = foldToAscii(text);
  if (folded.length < 1 || folded.length > max) {
    throw new Error(`${option} must be 1 to ${max} characters once accents are removed ("${folded}")`);
  }
  return folded;
}
