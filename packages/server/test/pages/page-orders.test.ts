import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import {
  BUYER,
  chargeOfOrder,
  createRefusedCoupons,
  createShop,
  pageRequest,
  placeOrder,
} from './page-support.js';
import type { Shop } from './page-support.js';
import type { TestApi } from '../support/test-api.js';

/** The order page's Server-Sent Events, read one `status` event at a time. */
async function orderEvents(api: TestApi, token: string) {
  const response = await fetch(`${api.baseUrl}/p/o/${token}/events`);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  return {
    async next(): Promise<any> {
      while (!text.includes('\n\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error('stream ended');
        text += decoder.decode(value);
      }
      const [event, ...rest] = text.split('\n\n');
      text = rest.join('\n\n');
      return JSON.parse(
        event!
          .split('\n')
          .find((line) => line.startsWith('data: '))!
          .slice(6),
      );
    },
    /** Whether the server ended the stream (nothing more follows). */
    async ended(): Promise<boolean> {
      return (await reader.read()).done;
    },
  };
}

describeEachDatabase(
  'purchase page orders',
  (api) => {
    let shop: Shop;
    beforeAll(async () => {
      shop = await createShop(api);
    });

    it('creates an ordinary Pix charge with the customer and metadata naming product, bump and coupon', async () => {
      await api.as(shop.key).post('/coupons', { code: 'DEZ', percent_off: 10 });
      const { res, token } = await placeOrder(api, shop, { bump: true, coupon: 'dez' });
      expect(res.status).toBe(201);
      expect(res.json.order_url).toMatch(/^\/p\/o\/[A-Za-z0-9_-]{22}$/);
      const charge = (await api.as(shop.key).get(`/payments/pix/${await chargeOfOrder(api, token!)}`)).body;
      expect(charge).toMatchObject({
        status: 'pending',
        amount: 99.9, // 100 − 10% + 9.90
        livemode: false,
        description: 'Curso de Violão',
        customer: {
          name: BUYER.name,
          email: BUYER.email,
          document: '52998224725',
          whatsapp: '+5511987654321',
        },
        metadata: {
          product_id: shop.product.id,
          product: 'Curso de Violão',
          order_bump_product_id: shop.bump.id,
          order_bump: 'E-book bônus',
          coupon: 'DEZ',
        },
      });
      expect(charge.metadata.order_id).toMatch(/^[0-9a-f-]{36}$/);

      // Paid from the page: the sale carries both items, the coupon and the product; one redemption.
      // The page gives the access link of each product bought, the bump's included.
      await api
        .as(shop.key)
        .patch(`/products/${shop.bump.id}`, { link_acesso: 'https://members.example.com/ebook' });
      const paid = await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
      expect(paid.status).toBe(200);
      expect(paid.json).toMatchObject({
        status: 'paid',
        access_links: [
          { name: 'Curso de Violão', url: 'https://members.example.com/violao' },
          { name: 'E-book bônus', url: 'https://members.example.com/ebook' },
        ],
      });
      const paidPage = await pageRequest(api, 'GET', `/p/o/${token}`);
      expect(paidPage.text).toContain(
        '<a class="button" href="https://members.example.com/violao">Acessar Curso de Violão</a>',
      );
      expect(paidPage.text).toContain(
        '<a class="button" href="https://members.example.com/ebook">Acessar E-book bônus</a>',
      );
      const sales = (await api.as(shop.key).get('/sales')).body.data;
      const sale = sales.find((s: any) => s.pix_charge_id === charge.id);
      expect(sale).toMatchObject({
        status: 'approved',
        amount: 99.9,
        payment_method: 'pix',
        product_id: shop.product.id,
        customer: charge.customer,
        coupon: { code: 'DEZ', discount: 10 },
        items: [
          { product_id: shop.product.id, nome: 'Curso de Violão', amount: 90, kind: 'product' },
          { product_id: shop.bump.id, nome: 'E-book bônus', amount: 9.9, kind: 'order_bump' },
        ],
      });
      const coupons = (await api.as(shop.key).get('/coupons')).body.data;
      expect(coupons.find((c: any) => c.code === 'DEZ').times_redeemed).toBe(1);
      // Paying again from the page is refused and counts nothing more.
      expect((await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {})).status).toBe(400);
      expect(
        (await api.as(shop.key).get('/coupons')).body.data.find((c: any) => c.code === 'DEZ').times_redeemed,
      ).toBe(1);
    });

    it('a sale of a charge made through the API has no items and no coupon', async () => {
      const charge = (await api.as(shop.key).post('/payments/pix', { amount: 5 })).body;
      await api.as(shop.key).post(`/payments/pix/${charge.id}/simulate_payment`);
      const sale = (await api.as(shop.key).get('/sales')).body.data.find(
        (s: any) => s.pix_charge_id === charge.id,
      );
      expect(sale).toMatchObject({ items: [], coupon: null, product_id: null, payment_method: 'pix' });
    });

    it('a coupon never discounts the bump and never takes the product below 0; a total of 0 completes at once', async () => {
      await api.as(shop.key).post('/coupons', { code: 'TUDO', amount_off: 500 });
      const withBump = await placeOrder(api, shop, { bump: true, coupon: 'TUDO' });
      const bumpOnly = (
        await api.as(shop.key).get(`/payments/pix/${await chargeOfOrder(api, withBump.token!)}`)
      ).body;
      expect(bumpOnly.amount).toBe(9.9);

      const free = await placeOrder(api, shop, { coupon: 'TUDO' });
      expect(free.res.status).toBe(201);
      const status = await pageRequest(api, 'GET', `/p/o/${free.token}/status`);
      expect(status.json).toEqual({
        status: 'paid',
        expires_at: null,
        access_links: [{ name: 'Curso de Violão', url: 'https://members.example.com/violao' }],
        sale_id: expect.any(String),
        card: null,
      });
      const page = await pageRequest(api, 'GET', `/p/o/${free.token}`);
      expect(page.text).toContain('Pagamento confirmado!');
      expect(page.text).toContain('href="https://members.example.com/violao"');
      const sale = (await api.as(shop.key).get('/sales')).body.data.find(
        (s: any) => s.payment_method === 'free',
      );
      expect(sale).toMatchObject({
        amount: 0,
        pix_charge_id: null,
        coupon: { code: 'TUDO', discount: 100 },
        items: [{ product_id: shop.product.id, amount: 0, kind: 'product' }],
      });
      const approved = await api.db
        .selectFrom('events')
        .select('payload')
        .where('store_id', '=', shop.storeId)
        .where('type', '=', 'sale.approved')
        .execute();
      expect(approved.some((e) => JSON.parse(e.payload).data.object.id === sale.id)).toBe(true);
    });

    it('refuses an expired, exhausted, inactive, unknown or other-product coupon by the coupon field, writing nothing', async () => {
      const other = (await api.as(shop.key).post('/products', { nome: 'Outro', preco: 10 })).body;
      await createRefusedCoupons(api, shop, { exhausted: 'USADO', expired: 'VENCE' });
      const off = (await api.as(shop.key).post('/coupons', { code: 'PARADO', percent_off: 5 })).body;
      await api.as(shop.key).post(`/coupons/${off.id}/archive`);
      await api.as(shop.key).post('/coupons', { code: 'SOOUTRO', percent_off: 5, product_ids: [other.id] });
      const before = await api.db.selectFrom('orders').select('id').execute();
      for (const [code, message] of [
        ['VENCE', 'Este cupom expirou.'],
        ['USADO', 'Este cupom esgotou.'],
        ['PARADO', 'Cupom inválido.'],
        ['NAOEXISTE', 'Cupom inválido.'],
        ['SOOUTRO', 'Este cupom não vale para este produto.'],
      ]) {
        const { res } = await placeOrder(api, shop, { coupon: code });
        expect(res.status, code).toBe(400);
        expect(res.json.fields).toEqual({ coupon: message });
        expect(res.json.error.param).toBe('coupon');
        const quote = await pageRequest(api, 'POST', `${shop.pagePath}/quote`, { bump: false, coupon: code });
        expect(quote.json.coupon_error).toBe(message);
      }
      expect(await api.db.selectFrom('orders').select('id').execute()).toHaveLength(before.length);
    });

    it('quotes the total with bump and coupon as the order will charge it', async () => {
      await api.as(shop.key).post('/coupons', { code: 'QUINZE', amount_off: 15 });
      const quote = await pageRequest(api, 'POST', `${shop.pagePath}/quote`, {
        bump: true,
        coupon: 'quinze',
      });
      expect(quote.json).toEqual({ total: 'R$ 94,90', discount: 'R$ 15,00', coupon_error: null });
    });

    it('checks every buyer field on the server and names each problem by its field', async () => {
      const { res } = await placeOrder(api, shop, {
        name: '   ',
        email: 'maria@',
        document: '529.982.247-24',
        whatsapp: '12',
      });
      expect(res.status).toBe(400);
      expect(Object.keys(res.json.fields).sort()).toEqual(['document', 'email', 'name', 'whatsapp']);
      expect(res.json.fields.document).toBe('Informe um CPF ou CNPJ válido.');
      // Boundaries: a 200-character name passes, 201 does not; a valid CNPJ passes; WhatsApp is optional.
      expect((await placeOrder(api, shop, { name: 'a'.repeat(200), whatsapp: undefined })).res.status).toBe(
        201,
      );
      expect((await placeOrder(api, shop, { name: 'a'.repeat(201) })).res.json.fields).toEqual({
        name: 'Informe seu nome completo.',
      });
      expect((await placeOrder(api, shop, { document: '11.222.333/0001-81' })).res.status).toBe(201);
      const malformed = await pageRequest(api, 'POST', `${shop.pagePath}/orders`, { ...BUYER, bump: 'yes' });
      expect(malformed.status).toBe(400);
    });

    it('expires a test charge at once with simulate_expiration; the order page offers a new Pix for the same token', async () => {
      const { token } = await placeOrder(api, shop);
      const chargeId = await chargeOfOrder(api, token!);
      const expired = await api.as(shop.key).post(`/payments/pix/${chargeId}/simulate_expiration`);
      expect(expired.status).toBe(200);
      expect(expired.body.status).toBe('expired');
      expectError(
        await api.as(shop.key).post(`/payments/pix/${chargeId}/simulate_expiration`),
        400,
        'invalid_request',
      );
      const events = await api.db
        .selectFrom('events')
        .select('payload')
        .where('type', '=', 'pix.expired')
        .execute();
      expect(events.filter((e) => JSON.parse(e.payload).data.object.id === chargeId)).toHaveLength(1);

      expect((await pageRequest(api, 'GET', `/p/o/${token}/status`)).json.status).toBe('expired');
      const page = await pageRequest(api, 'GET', `/p/o/${token}`);
      expect(page.text).toContain('Gerar novo Pix');
      const renewed = await Promise.all(
        [1, 2, 3].map(() => pageRequest(api, 'POST', `/p/o/${token}/renew`, {})),
      );
      expect(renewed.map((r) => r.status)).toEqual([200, 200, 200]);
      const newChargeId = await chargeOfOrder(api, token!);
      expect(newChargeId).not.toBe(chargeId);
      expect((await pageRequest(api, 'GET', `/p/o/${token}/status`)).json.status).toBe('pending');
      const charges = await api.db
        .selectFrom('pix_charges')
        .select('id')
        .where('metadata', 'like', '%Curso de Violão%')
        .where('status', '=', 'pending')
        .execute();
      expect(charges.filter((c) => c.id === newChargeId)).toHaveLength(1);
      const sameOrder = await api.db
        .selectFrom('pix_charges')
        .select('metadata')
        .where('id', 'in', [chargeId, newChargeId])
        .execute();
      expect(new Set(sameOrder.map((c) => JSON.parse(c.metadata!).order_id)).size).toBe(1);
    });

    it('simulate_expiration: paid charges and unknown ids refused; live keys get 400', async () => {
      const charge = (await api.as(shop.key).post('/payments/pix', { amount: 1 })).body;
      await api.as(shop.key).post(`/payments/pix/${charge.id}/simulate_payment`);
      expectError(
        await api.as(shop.key).post(`/payments/pix/${charge.id}/simulate_expiration`),
        400,
        'invalid_request',
      );
      expectError(
        await api.as(shop.key).post('/payments/pix/pix_nope/simulate_expiration'),
        404,
        'not_found',
      );
      const live = await api.createKey(shop.storeId, ['pix:write'], 'live');
      expectError(
        await api.as(live).post(`/payments/pix/${charge.id}/simulate_expiration`),
        400,
        'invalid_request',
      );
    });

    it('streams the status by Server-Sent Events: pending at once, paid when paid elsewhere, then ends', async () => {
      const { token } = await placeOrder(api, shop);
      const stream = await orderEvents(api, token!);
      expect((await stream.next()).status).toBe('pending');
      // Paid through the API, not the page: the one payment path tells the page.
      await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, token!)}/simulate_payment`);
      expect(await stream.next()).toMatchObject({
        status: 'paid',
        access_links: [{ name: 'Curso de Violão', url: 'https://members.example.com/violao' }],
      });
      expect(await stream.ended()).toBe(true);
    });

    it('a Pix the store canceled through the API: the order page says so, offers no new Pix, and the stream ends', async () => {
      const { token } = await placeOrder(api, shop);
      const chargeId = await chargeOfOrder(api, token!);
      const stream = await orderEvents(api, token!);
      expect((await stream.next()).status).toBe('pending');
      expect((await api.as(shop.key).post(`/payments/pix/${chargeId}/cancel`)).status).toBe(200);
      expect(await stream.next()).toMatchObject({ status: 'canceled', access_links: [] });
      expect(await stream.ended()).toBe(true);

      const status = await pageRequest(api, 'GET', `/p/o/${token}/status`);
      expect(status.json).toMatchObject({ status: 'canceled', access_links: [] });
      const page = await pageRequest(api, 'GET', `/p/o/${token}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('data-status="canceled"');
      expect(page.text).toMatch(
        /<section class="card canceled" id="canceled" aria-labelledby="canceled-title">/,
      );
      expect(page.text).toContain('Este Pix foi cancelado pela loja');
      expect(page.text).toContain('Se ainda quiser comprar, fale com a loja ou faça um novo pedido.');
      expect(page.text).toContain(`href="${shop.pagePath}"`);
      expect(page.text).not.toContain('Gerar novo Pix');
      expect(page.text).not.toContain('id="renew"');
      expect(page.text).not.toContain('Este Pix expirou');
      expect(page.text).toMatch(/id="pending" hidden /);
      // A pending order's page carries the canceled card hidden, for the live switch.
      const pending = await pageRequest(api, 'GET', `/p/o/${(await placeOrder(api, shop)).token}`);
      expect(pending.text).toMatch(/id="canceled" hidden /);

      const renew = await pageRequest(api, 'POST', `/p/o/${token}/renew`, {});
      expect(renew.status).toBe(400);
      expect(renew.json.error.message).toBe(
        'Este Pix foi cancelado pela loja. Fale com a loja se ainda quiser comprar.',
      );
      expect(await chargeOfOrder(api, token!)).toBe(chargeId);
      expect((await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {})).status).toBe(400);
    });

    it('the canceled card links to the product only while it is on sale', async () => {
      const other = await createShop(api, {}, 'Loja Pausada');
      const { token } = await placeOrder(api, other);
      await api.as(other.key).post(`/payments/pix/${await chargeOfOrder(api, token!)}/cancel`);
      await api.as(other.key).patch(`/products/${other.product.id}`, { ativo: false });
      const page = await pageRequest(api, 'GET', `/p/o/${token}`);
      expect(page.text).toContain('Se ainda quiser comprar, fale com a loja.');
      expect(page.text).not.toContain('Fazer um novo pedido');
    });

    it("canceling an order's Pix releases its coupon hold: the next buyer gets the last redemption", async () => {
      const coupon = (
        await api.as(shop.key).post('/coupons', { code: 'ULTIMO', percent_off: 20, max_redemptions: 1 })
      ).body;
      const first = await placeOrder(api, shop, { coupon: 'ULTIMO' });
      expect(first.res.status).toBe(201);
      const held = await placeOrder(api, shop, { coupon: 'ULTIMO' });
      expect(held.res.status).toBe(400);
      expect(held.res.json.fields).toEqual({ coupon: 'Este cupom esgotou.' });
      const quoteHeld = await pageRequest(api, 'POST', `${shop.pagePath}/quote`, {
        bump: false,
        coupon: 'ULTIMO',
      });
      expect(quoteHeld.json.coupon_error).toBe('Este cupom esgotou.');

      // The store cancels the first order's Pix: its hold ends with the cancel, not at the Pix's expiry.
      const canceled = await api
        .as(shop.key)
        .post(`/payments/pix/${await chargeOfOrder(api, first.token!)}/cancel`);
      expect(canceled.status).toBe(200);
      const quote = await pageRequest(api, 'POST', `${shop.pagePath}/quote`, {
        bump: false,
        coupon: 'ULTIMO',
      });
      expect(quote.json).toMatchObject({ total: 'R$ 80,00', coupon_error: null });
      const second = await placeOrder(api, shop, { coupon: 'ULTIMO' });
      expect(second.res.status).toBe(201);
      const charge = (await api.as(shop.key).get(`/payments/pix/${await chargeOfOrder(api, second.token!)}`))
        .body;
      expect(charge).toMatchObject({ amount: 80, metadata: { coupon: 'ULTIMO' } });
      // The second order holds the redemption now; once paid it counts, and the coupon is used up.
      expect((await placeOrder(api, shop, { coupon: 'ULTIMO' })).res.status).toBe(400);
      expect((await pageRequest(api, 'POST', `/p/o/${second.token}/simulate`, {})).status).toBe(200);
      expect((await api.as(shop.key).get(`/coupons/${coupon.id}`)).body.times_redeemed).toBe(1);
      expect((await placeOrder(api, shop, { coupon: 'ULTIMO' })).res.json.fields).toEqual({
        coupon: 'Este cupom esgotou.',
      });
    });

    it('a store in live mode with no live provider refuses the order with a message and keeps nothing', async () => {
      const live = await createShop(api, {}, 'Loja Real');
      await api.db
        .updateTable('stores')
        .set({ checkout_mode: 'live' })
        .where('id', '=', live.storeId)
        .execute();
      const page = await pageRequest(api, 'GET', live.pagePath);
      expect(page.text).not.toContain('Modo de teste');
      const { res } = await placeOrder(api, live);
      expect(res.status).toBe(503);
      expect(res.json.error.message).toMatch(/Esta loja não está recebendo pagamentos no momento/);
      expect(
        await api.db.selectFrom('orders').select('id').where('store_id', '=', live.storeId).execute(),
      ).toEqual([]);
    });
  },
  { config: { orderRateLimitPerMinute: 1000 } },
);
