import { Storefront, type ClientOptions } from '../../src/index.js';

export const API_KEY = 'sk_test_stubkey';

export function clientFor(baseUrl: string, options: Partial<ClientOptions> = {}): Storefront {
  return new Storefront({ apiKey: API_KEY, baseUrl, ...options });
}

export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export const pixCharge = (id: string) => ({
  object: 'pix_charge',
  id,
  status: 'pending',
  amount: 10,
  description: null,
  external_id: null,
  customer: null,
  metadata: null,
  expires_at: '2026-11-22T11:00:00.000Z',
  paid_at: null,
  livemode: false,
  created_at: '2026-11-22T10:00:00.000Z',
  pix: { copy_paste: '000201…', qr_code_base64: 'iVBOR…', txid: 'tx1' },
});
