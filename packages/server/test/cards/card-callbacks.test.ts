import { expect, it } from 'vitest';
import {
  cardNotificationUrl,
  saveCardProviderSettings,
} from '../../src/domain/payments/card-settings/card-provider-settings.js';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { describeEachDatabase } from '../support/test-api.js';
import { eventually } from '../webhooks/delivery-harness.js';

/**
 * `POST /callbacks/card/<token>` as the open internet sees it: an unknown token is a bare 404, a body
 * too big 413, a store's notifications beyond its limit 429, and the token never in the access log.
 */
const logLines: Record<string, unknown>[] = [];

describeEachDatabase(
  'Card PSP notifications: limits and redaction',
  (api) => {
    async function pagarmeStore() {
      const { storeId } = await api.createStore({ name: 'Loja Pagar.me' });
      const row = await saveCardProviderSettings(api.db, createSecretBox(api.config.secret), {
        storeId,
        livemode: true,
        provider: 'pagarme',
        secret: 'sk_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6',
        publicKey: 'pk_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6',
        webhookSecret: null,
      });
      const url = cardNotificationUrl(createSecretBox(api.config.secret), row, api.baseUrl);
      return { storeId, url, token: url.split('/').at(-1)! };
    }
    const post = (url: string, body: string) =>
      fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });

    it('an unknown token: 404 with no detail, and the access log shows :token, never the token', async () => {
      const res = await post(`${api.baseUrl}/callbacks/card/tok-that-no-store-has`, '{}');
      expect(res.status).toBe(404);
      expect((await res.json()).error.code).toBe('not_found');
      const { token } = await pagarmeStore();
      await post(`${api.baseUrl}/callbacks/card/${token}`, '{"type":"customer.created","data":{}}');
      const logged = JSON.stringify(logLines);
      expect(logged).toContain('/callbacks/card/:token');
      expect(logged).not.toContain('tok-that-no-store-has');
      expect(logged).not.toContain(token);
    });

    it('a notification naming no payment of ours is kept, answered 200 and ignored', async () => {
      const { storeId, url } = await pagarmeStore();
      const res = await post(url, JSON.stringify({ type: 'order.paid', data: { id: 'or_nobodys00000000' } }));
      expect(res.status).toBe(200);
      const row = await eventually(async () => {
        const found = await api.db
          .selectFrom('card_notifications')
          .selectAll()
          .where('store_id', '=', storeId)
          .executeTakeFirst();
        return found?.processed_at ? found : undefined;
      });
      expect(row).toMatchObject({
        provider: 'pagarme',
        provider_payment_id: 'or_nobodys00000000',
        outcome: 'ignored',
      });
    });

    it('a body over 64 KiB is 413; past the store’s limit a minute, 429 with Retry-After', async () => {
      const { url } = await pagarmeStore();
      const big = await post(
        url,
        JSON.stringify({ type: 'order.paid', data: { pad: 'x'.repeat(70 * 1024) } }),
      );
      expect(big.status).toBe(413);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await post(url, '{"type":"order.paid","data":{}}')).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await post(url, '{}');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  },
  { logLines, config: { pixCallbackRateLimitPerMinute: 3 } },
);
