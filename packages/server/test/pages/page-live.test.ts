import { expect, it } from 'vitest';
import { saveProviderSettings } from '../../src/domain/payments/api-pix/provider-settings.js';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { findStore, updateStore } from '../../src/domain/stores/stores.js';
import { FAKE_PSP_ALLOWED_HOSTS, useLivePix } from '../live-pix/live-harness.js';
import { testPki } from '../support/test-pki.js';
import { describeEachDatabase } from '../support/test-api.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { chargeOfOrder, pageRequest, placeOrder } from './page-support.js';
import type { Shop } from './page-support.js';

const logLines: Record<string, unknown>[] = [];

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
      expect(status.access_links).toEqual([
        { name: 'Mentoria', url: 'https://members.example.com/mentoria' },
      ]);
      const sale = (await api.as(shop.key).get('/sales')).body.data.find(
        (s: any) => s.pix_charge_id === charge.id,
      );
      expect(sale).toMatchObject({
        livemode: true,
        items: [{ product_id: shop.product.id, nome: 'Mentoria', amount: 12.34, kind: 'product' }],
      });
    });

    /** The store's PSP settings again, with `change` (how `pix-provider set` would replace them). */
    async function reconfigure(
      storeId: string,
      change: { baseUrl?: string; tokenUrl?: string; caPem?: string },
    ) {
      const psp = live.psp();
      const pki = testPki();
      await saveProviderSettings(api.db, createSecretBox(api.config.secret), {
        storeId,
        baseUrl: psp.baseUrl,
        tokenUrl: psp.tokenUrl,
        clientId: psp.clientId,
        clientSecret: psp.clientSecret,
        identity: { certPem: pki.client.cert, keyPem: pki.client.key },
        caPem: pki.ca.cert,
        ...change,
      });
    }

    it.each([
      {
        // ENOTFOUND, or EAI_AGAIN where the machine has no DNS answer at all.
        cause: 'the PSP host does not resolve (ENOTFOUND or EAI_AGAIN)',
        setUp: (storeId: string) =>
          reconfigure(storeId, {
            baseUrl: 'https://psp.invalid/v2',
            tokenUrl: 'https://psp.invalid/oauth/token',
          }),
        logged: /ENOTFOUND|EAI_AGAIN/,
      },
      {
        cause: "the PSP's certificate is not trusted (TLS)",
        // No extra CA: Node's bundled ones do not know the fake PSP's.
        setUp: (storeId: string) => reconfigure(storeId, { caPem: undefined }),
        logged: /certificate/i,
      },
      {
        cause: 'the PSP answers a problem+json',
        setUp: async () => live.psp().failWith('500'),
        logged: /500 ErroInternoDoServidor: "Erro interno do servidor\."/,
      },
    ])(
      'when $cause, the buyer is asked to retry and the log names the cause, the store and the attempt',
      async ({ setUp, logged }) => {
        const shop = await liveShop();
        await setUp(shop.storeId);
        const seen = logLines.length;
        const { res } = await placeOrder(api, shop);
        expect(res.status, res.text).toBe(503);
        expect(res.json.error.message).toBe(
          'Não foi possível gerar o Pix agora. Tente novamente em instantes.',
        );

        const lines = logLines.slice(seen);
        const failure = lines.find(
          (line) => line.msg === 'purchase page: the Pix charge could not be created',
        );
        expect(failure, JSON.stringify(lines)).toMatchObject({
          level: 50,
          storeId: shop.storeId,
          code: 'provider_error',
          attempt: {
            orderId: expect.any(String),
            chargeId: expect.stringMatching(/^pix_/),
            txid: expect.stringMatching(/^[a-zA-Z0-9]{26,35}$/),
          },
        });
        expect(failure!.cause).toMatch(logged);
        // The buyer's words are not what the operator reads, and no secret is written.
        const text = JSON.stringify(lines);
        expect(text).not.toContain('Tente novamente em instantes');
        expect(text).not.toContain(live.psp().clientSecret);
        expect(text).not.toContain('PRIVATE KEY');
        // Nothing half-written: the order went with its charge.
        const orders = await api.db
          .selectFrom('orders')
          .select('id')
          .where('store_id', '=', shop.storeId)
          .execute();
        expect(orders).toEqual([]);
      },
    );
  },
  { config: { orderRateLimitPerMinute: 1000, pspAllowedHosts: FAKE_PSP_ALLOWED_HOSTS }, logLines },
);
