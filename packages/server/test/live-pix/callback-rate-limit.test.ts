import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config/config.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { CHAVE, FAKE_PSP_ALLOWED_HOSTS, useLivePix } from './live-harness.js';

/** PSP callbacks are open to anyone holding a store's callback URL: counted per store. */
describeEachDatabase(
  'PSP callback rate limit (STOREFRONT_PIX_CALLBACK_RATE_LIMIT)',
  (api) => {
    const live = useLivePix(api);
    const post = (url: string, body: unknown = { pix: [] }) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const storedCallbacks = async (storeId: string) =>
      (await api.db.selectFrom('pix_callbacks').select('id').where('store_id', '=', storeId).execute())
        .length;

    it('stores the limit of callbacks a minute for a store, then answers 429 with Retry-After and stores nothing more', async () => {
      const store = await live.liveStore();
      const url = live.psp().webhooks.get(CHAVE)!;
      const other = await live.liveStore();
      const otherUrl = live.psp().webhooks.get(CHAVE)!;
      expect(otherUrl).not.toBe(url);

      // The two paths a PSP may use share the store's count.
      for (const path of [url, `${url}/pix`, url]) expect((await post(path)).status).toBe(200);
      const limited = await post(`${url}/pix`, {
        pix: [{ txid: 'x'.repeat(30), filler: 'y'.repeat(10_000) }],
      });
      expect(limited.status).toBe(429);
      const body = await limited.json();
      expect(body.error).toMatchObject({ code: 'rate_limited', param: null });
      expect(body.error.request_id).toBe(limited.headers.get('request-id'));
      const retryAfter = Number(limited.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(await storedCallbacks(store.storeId)).toBe(3);

      // Another store's callbacks are counted apart; an unknown token is still 404, not 429.
      expect((await post(otherUrl)).status).toBe(200);
      expect(await storedCallbacks(other.storeId)).toBe(1);
      const unknown = await post(`${api.baseUrl}/callbacks/pix/not-a-token`);
      expect(unknown.status).toBe(404);
      expectError(
        { status: unknown.status, headers: unknown.headers, body: await unknown.json(), text: '' },
        404,
        'not_found',
      );
    });
  },
  { config: { pixCallbackRateLimitPerMinute: 3, pspAllowedHosts: FAKE_PSP_ALLOWED_HOSTS } },
);

describe('STOREFRONT_PIX_CALLBACK_RATE_LIMIT', () => {
  const env = { DATABASE_URL: 'sqlite::memory:', STOREFRONT_SECRET: 'x'.repeat(32) };
  it('defaults to 600 a minute, takes 1 and up, and stops the start on 0 or text naming the variable', () => {
    expect(loadConfig(env).pixCallbackRateLimitPerMinute).toBe(600);
    expect(
      loadConfig({ ...env, STOREFRONT_PIX_CALLBACK_RATE_LIMIT: '1' }).pixCallbackRateLimitPerMinute,
    ).toBe(1);
    for (const value of ['0', 'lots']) {
      expect(() => loadConfig({ ...env, STOREFRONT_PIX_CALLBACK_RATE_LIMIT: value })).toThrow(
        /STOREFRONT_PIX_CALLBACK_RATE_LIMIT/,
      );
    }
  });
});
