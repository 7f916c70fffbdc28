import { expect, it } from 'vitest';
import { findStore, updateStore } from '../../src/stores/stores.js';
import { useLivePix } from '../live-pix/live-harness.js';
import { describeEachDatabase } from '../support/test-api.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { chargeOfOrder, pageRequest, placeOrder } from './page-support.js';
import type { Shop } from './page-support.js';

/** A store in live checkout mode: its pages charge through its PSP (the fake PSP over mTLS). */
describeEachDatabase(
  'purchase page of a store in live checkout mode',
  (api) => {
    const live = useLivePix(api);

    async function liveShop(): Promise<Shop> {
      const store = await live.liveStore();
      await updateStore(api.db, store.storeId, { checkoutMode: 'live' });
      const { handle } = (await findStore(api.db, store.storeId))!;
      const product = await api.as(store.key).post('/products', {
        nome: 'Mentoria',
        preco: 12.34,
        link_acesso: 'https://members.example.com/mentoria',
      });
      expect(product.status, product.text).toBe(201);
      return {
        key: store.key,
        storeId: store.storeId,
        handle,
        checkoutId: '',
        product: product.body,
        bump: null,
        pagePath: `/p/${handle}/${product.body.slug}`,
      };
    }

    it('creates a live charge at the PSP, shows no test banner nor simulate button, and is paid by the PSP', async () => {
      const shop = await liveShop();
      const page = await pageRequest(api, 'GET', shop.pagePath);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('test-banner');

      const { res, token } = await placeOrder(api, shop);
      expect(res.status, res.text).toBe(201);
      const charge = (await api.as(shop.key).get(`/payments/pix/${await chargeOfOrder(api, token!)}`)).body;
      expect(charge).toMatchObject({ livemode: true, status: 'pending', amount: 12.34 });
      expect(live.psp().cobs.has(charge.pix.txid)).toBe(true);

      const orderPage = await pageRequest(api, 'GET', `/p/o/${token}`);
      expect(orderPage.text).not.toContain('Simular pagamento');
      expect(orderPage.text).not.toContain('test-banner');
      const simulated = await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
      expect(simulated.status).toBe(400);

      await live.psp().pay(charge.pix.txid);
      const status = await eventually(async () => {
        const now = await pageRequest(api, 'GET', `/p/o/${token}/status`);
        return now.json.status === 'paid' && now.json;
      });
      expect(status.access_url).toBe('https://members.example.com/mentoria');
      const sale = (await api.as(shop.key).get('/sales')).body.data.find(
        (s: any) => s.pix_charge_id === charge.id,
      );
      expect(sale).toMatchObject({
        livemode: true,
        items: [{ product_id: shop.product.id, nome: 'Mentoria', amount: 12.34, kind: 'product' }],
      });
    });
  },
  { config: { orderRateLimitPerMinute: 1000 } },
);
