import { beforeAll, expect, it } from 'vitest';
import { DECLINE_MESSAGES_PT } from '../../src/domain/kernel/card-outcome.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { BUYER, createShop, pageRequest, saleOfOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { orderRow, placeCardOrder, setCardProvider } from './card-page-support.js';

/**
 * Cards on the hosted purchase page over HTTP: the installments endpoint, each simulated outcome of a
 * card order, Pix for the same order after a decline, the 3-D Secure page, the rate limit, the logs,
 * and the CSP each store's card PSP widens.
 */

const paymentOf = async (api: TestApi, shop: Shop, token: string) => {
  const row = await orderRow(api, token);
  return (await api.as(shop.key).get(`/payments/card/${row.card_payment_id}`)).body;
};
const statusOf = async (api: TestApi, token: string) =>
  (await pageRequest(api, 'GET', `/p/o/${token}/status`)).json;

const logLines: Record<string, unknown>[] = [];

describeEachDatabase(
  'cards on the purchase page',
  (api) => {
    let shop: Shop;
    beforeAll(async () => {
      shop = await createShop(api);
      await api.as(shop.key).post('/coupons', { code: 'DEZ', percent_off: 10 });
    });

    it('answers installment_options for the page’s own total (bump and coupon as the page has them), as the API prices it', async () => {
      const plain = await pageRequest(api, 'GET', `${shop.pagePath}/installments`);
      expect(plain.status).toBe(200);
      const api100 = await api.as(shop.key).get('/payments/card/installments?amount=100');
      expect(plain.json).toEqual(api100.body);
      expect(plain.json.options[0]).toEqual({
        installments: 1,
        installment_amount: 100,
        total_amount: 100,
        interest_free: true,
      });
      // Bump (9.90) and coupon (10 % of the product) as the page would order them: 90 + 9.90.
      const chosen = await pageRequest(api, 'GET', `${shop.pagePath}/installments?bump=true&coupon=dez`);
      expect(chosen.json.amount).toBe(99.9);
      expect(chosen.json).toEqual(
        (await api.as(shop.key).get('/payments/card/installments?amount=99.9')).body,
      );
      // A refused coupon prices without it, as the quote does.
      expect((await pageRequest(api, 'GET', `${shop.pagePath}/installments?coupon=NADA`)).json.amount).toBe(
        100,
      );
    });

    it('approved: the order is paid at once; its sale and payment carry the installments and totals of the table', async () => {
      const table = (await pageRequest(api, 'GET', `${shop.pagePath}/installments`)).json;
      const three = table.options.find((option: any) => option.installments === 3);
      const { res, token } = await placeCardOrder(api, shop, 'tok_test_approved', 3);
      expect(res.status).toBe(201);
      expect(res.json).toEqual({
        order_url: `/p/o/${token}`,
        card_payment: { status: 'approved', next_action_url: null, decline_message: null },
      });
      expect(await statusOf(api, token!)).toMatchObject({ status: 'paid', card: null });
      const payment = await paymentOf(api, shop, token!);
      expect(payment).toMatchObject({
        status: 'approved',
        amount: 100,
        installments: 3,
        installment_amount: three.installment_amount,
        total_amount: three.total_amount,
        provider: 'simulated',
      });
      const sale = await saleOfOrder(api, shop, token!);
      expect(sale).toMatchObject({
        payment_method: 'card',
        card_payment_id: payment.id,
        installments: 3,
        amount: 100,
        product_id: shop.product.id,
      });
      // One transaction, in the order a store's server must read them: the order, its payment, its sale.
      const events = await api.db
        .selectFrom('events')
        .select('type')
        .where('store_id', '=', shop.storeId)
        .where('type', 'in', ['order.created', 'card_payment.approved', 'sale.approved'])
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(3)
        .execute();
      expect(events.map((event) => event.type).reverse()).toEqual([
        'order.created',
        'card_payment.approved',
        'sale.approved',
      ]);
      const page = await pageRequest(api, 'GET', `/p/o/${token}`);
      expect(page.text).toContain('Pagamento confirmado!');
      expect(page.text).toContain(
        `Cartão de crédito: 3x de R$ ${String(three.installment_amount.toFixed(2)).replace('.', ',')}`,
      );
    });

    it('declined: each code is told in Portuguese; the order waits, and Pix for the same order pays it', async () => {
      for (const code of ['insufficient_funds', 'invalid_cvv', 'fraud_suspected'] as const) {
        const { res, token } = await placeCardOrder(api, shop, `tok_test_declined_${code}`);
        expect(res.status).toBe(201);
        expect(res.json.card_payment).toEqual({
          status: 'declined',
          next_action_url: null,
          decline_message: DECLINE_MESSAGES_PT[code],
        });
        expect(await statusOf(api, token!)).toMatchObject({
          status: 'declined',
          card: { decline_message: DECLINE_MESSAGES_PT[code], next_action_url: null },
        });
        const page = await pageRequest(api, 'GET', `/p/o/${token}`);
        expect(page.text).toContain('Pagamento recusado');
        expect(page.text).toContain(DECLINE_MESSAGES_PT[code]);
      }
      const { token } = await placeCardOrder(api, shop, 'tok_test_declined_issuer_declined', 1, {
        bump: true,
      });
      const before = await orderRow(api, token!);
      const renewed = await pageRequest(api, 'POST', `/p/o/${token}/renew`, {});
      expect(renewed.status).toBe(200);
      expect(renewed.json.status).toBe('pending');
      const after = await orderRow(api, token!);
      expect(after.id).toBe(before.id);
      expect(after.payment_method).toBe('pix');
      const charge = (await api.as(shop.key).get(`/payments/pix/${after.pix_charge_id}`)).body;
      expect(charge.amount).toBe(109.9);
      expect((await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {})).json.status).toBe('paid');
      expect(await saleOfOrder(api, shop, token!)).toMatchObject({ payment_method: 'pix', amount: 109.9 });
      // Paid: nothing more to renew.
      expect((await pageRequest(api, 'POST', `/p/o/${token}/renew`, {})).json.status).toBe('paid');
    });

    it('3-D Secure through its page: "Autenticar" pays the order, "Falhar" declines it; the link then leads to the order', async () => {
      for (const [result, outcome] of [
        ['authenticated', 'paid'],
        ['failed', 'declined'],
      ] as const) {
        const { res, token } = await placeCardOrder(api, shop, 'tok_test_3ds');
        expect(res.json.card_payment.status).toBe('requires_action');
        const url = new URL(res.json.card_payment.next_action_url, api.baseUrl);
        expect(res.json.card_payment.next_action_url).toBe(url.pathname);
        expect(url.pathname).toMatch(/^\/p\/3ds\/[A-Za-z0-9_-]{43}$/);
        expect(await statusOf(api, token!)).toMatchObject({
          status: 'requires_action',
          card: { next_action_url: url.pathname },
        });
        const page = await pageRequest(api, 'GET', url.pathname);
        expect(page.status).toBe(200);
        expect(page.text).toContain('Autenticar');
        expect(page.text).toContain('Falhar');
        expect(page.headers.get('content-security-policy')).not.toContain('frame-src');
        // Same origin only, like every page POST.
        expect((await pageRequest(api, 'POST', url.pathname, { result }, {})).status).toBe(403);
        const posted = await pageRequest(api, 'POST', url.pathname, { result });
        expect(posted.json).toEqual({ redirect: `/p/o/${token}` });
        expect((await statusOf(api, token!)).status).toBe(outcome);
        const again = await fetch(`${api.baseUrl}${url.pathname}`, { redirect: 'manual' });
        expect(again.status).toBe(303);
        expect(again.headers.get('location')).toBe(`/p/o/${token}`);
        expect((await pageRequest(api, 'POST', url.pathname, { result })).status).toBe(400);
      }
      expect(
        (await pageRequest(api, 'GET', '/p/3ds/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).status,
      ).toBe(404);
    });

    it('3-D Secure of an API payment (no order): the page answers the outcome itself', async () => {
      const created = await api.as(shop.key).post(
        '/payments/card',
        {
          amount: 50,
          card: { token: 'tok_test_3ds' },
          customer: { name: BUYER.name, email: BUYER.email, document: BUYER.document },
        },
        { 'Idempotency-Key': `api-3ds-${api.dialect}` },
      );
      const path = new URL(created.body.next_action.url).pathname;
      expect((await pageRequest(api, 'POST', path, { result: 'authenticated' })).json).toEqual({
        redirect: path,
      });
      const page = await pageRequest(api, 'GET', path);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Pagamento aprovado');
    });

    it('processing: "Pagamento em análise" until simulate_settlement decides, then the order page follows', async () => {
      const { res, token } = await placeCardOrder(api, shop, 'tok_test_processing');
      expect(res.json.card_payment.status).toBe('processing');
      expect((await statusOf(api, token!)).status).toBe('processing');
      expect((await pageRequest(api, 'GET', `/p/o/${token}`)).text).toContain('Pagamento em análise');
      const payment = await paymentOf(api, shop, token!);
      await api.as(shop.key).post(`/payments/card/${payment.id}/simulate_settlement`, { result: 'approved' });
      expect((await statusOf(api, token!)).status).toBe('paid');
    });

    it('refuses what it cannot charge, writing no order: an unknown test token, installments the store does not offer', async () => {
      const before = await api.count('orders');
      const unknown = await placeCardOrder(api, shop, 'tok_unknown_card');
      expect(unknown.res.status).toBe(400);
      expect(unknown.res.json.error.message).toContain('cartão');
      await api.db
        .updateTable('stores')
        .set({ card_max_installments: 2 })
        .where('id', '=', shop.storeId)
        .execute();
      const tooMany = await placeCardOrder(api, shop, 'tok_test_approved', 6);
      await api.db
        .updateTable('stores')
        .set({ card_max_installments: 12 })
        .where('id', '=', shop.storeId)
        .execute();
      expect(tooMany.res.status).toBe(400);
      expect(tooMany.res.json.fields).toEqual({ installments: 'Escolha uma das opções de parcelamento.' });
      // A card number is never taken for a token.
      expect((await placeCardOrder(api, shop, '4111111111111111')).res.status).toBe(400);
      expect(await api.count('orders')).toBe(before);
    });

    it('never logs a card token; the 3-D Secure link is redacted in the access log', async () => {
      const { res } = await placeCardOrder(api, shop, 'tok_test_3ds');
      const path = res.json.card_payment.next_action_url;
      await pageRequest(api, 'GET', path);
      await pageRequest(api, 'POST', path, { result: 'authenticated' });
      await placeCardOrder(api, shop, 'tok_test_declined_call_issuer');
      await placeCardOrder(api, shop, 'tok_secret_card_zz9');
      const text = JSON.stringify(logLines);
      expect(text).toContain('/p/3ds/:token');
      expect(text).not.toContain(path.split('/').pop()!);
      for (const token of ['tok_test_3ds', 'tok_test_declined_call_issuer', 'tok_secret_card_zz9'])
        expect(text).not.toContain(token);
    });

    it('offers no card tab to a subscription product, nor to a live store without a card PSP', async () => {
      const recurring = (
        await api.as(shop.key).post('/products', { nome: 'Clube', preco: 30, recorrencia: 'mensal' })
      ).body;
      const subscription = await pageRequest(api, 'GET', `/p/${shop.handle}/${recurring.slug}`);
      expect(subscription.text).not.toContain('Cartão de crédito');
      const page = await pageRequest(api, 'GET', shop.pagePath);
      expect(page.text).toContain('id="method-card"');
      expect(page.text).toContain('Cartão de teste');
      const live = await createShop(api, {}, 'Loja ao vivo');
      await api.db
        .updateTable('stores')
        .set({ checkout_mode: 'live' })
        .where('id', '=', live.storeId)
        .execute();
      const livePage = await pageRequest(api, 'GET', live.pagePath);
      expect(livePage.status).toBe(200);
      expect(livePage.text).not.toContain('method-card');
      expect(livePage.text).not.toContain('Cartão');
      expect(livePage.headers.get('content-security-policy')).not.toContain('installments');
      expect((await placeCardOrder(api, live, 'tok_test_approved')).res.status).toBe(400);
      expect((await pageRequest(api, 'GET', `${live.pagePath}/installments`)).status).toBe(400);
    });

    it('widens the CSP to the store’s own card PSP on its product pages only', async () => {
      const mp = await createShop(api, {}, 'Loja MP');
      await setCardProvider(api, mp.storeId, 'mercadopago', true);
      await api.db
        .updateTable('stores')
        .set({ checkout_mode: 'live' })
        .where('id', '=', mp.storeId)
        .execute();
      const pagarme = await createShop(api, {}, 'Loja Pagar.me');
      await setCardProvider(api, pagarme.storeId, 'pagarme', false);

      const mpPage = await pageRequest(api, 'GET', mp.pagePath);
      const mpCsp = mpPage.headers.get('content-security-policy')!;
      expect(mpCsp).toMatch(/script-src 'nonce-[^;]+ https:\/\/sdk\.mercadopago\.com/);
      expect(mpCsp).toMatch(/frame-src https:\/\/api-static\.mercadopago\.com/);
      expect(mpCsp).toMatch(/connect-src [^;]*https:\/\/api\.mercadopago\.com/);
      expect(mpCsp).not.toContain('pagar.me');
      expect(mpPage.text).toContain('data-script="https://sdk.mercadopago.com/js/v2"');
      expect(mpPage.text).toContain('data-public-key="APP_USR-public-live-key"');
      expect(mpPage.text).toContain('id="card-number"');
      expect(mpPage.text).not.toContain('Cartão de teste');

      const pgPage = await pageRequest(api, 'GET', pagarme.pagePath);
      const pgCsp = pgPage.headers.get('content-security-policy')!;
      expect(pgCsp).toMatch(/script-src 'nonce-[^;]+ https:\/\/checkout\.pagar\.me/);
      expect(pgCsp).toMatch(/connect-src [^;]*https:\/\/api\.pagar\.me/);
      expect(pgCsp).not.toContain('frame-src');
      expect(pgCsp).not.toContain('mercadopago');
      expect(pgPage.text).toContain('data-script="https://checkout.pagar.me/v1/tokenizecard.js"');
      expect(pgPage.text).toContain('data-pagarmecheckout-form');
      expect(pgPage.text).toContain('data-pagarmecheckout-element="number"');
      // The card fields have no name: no form of this page can send a card number here.
      expect(pgPage.text).not.toMatch(/<input[^>]*data-pagarmecheckout-element[^>]*name=/);

      // A simulated store's page, an order page and the dashboard stay as they were.
      for (const path of [
        shop.pagePath,
        `/p/o/${(await placeCardOrder(api, shop, 'tok_test_processing')).token}`,
        '/dashboard/login',
      ]) {
        const csp = (await pageRequest(api, 'GET', path)).headers.get('content-security-policy') ?? '';
        expect(csp).not.toMatch(/mercadopago|pagar\.me|mlstatic/);
      }
    });
  },
  { logLines },
);

describeEachDatabase(
  'card orders share the page’s order limit',
  (api) => {
    it('counts card orders with Pix orders, per IP and store', async () => {
      const shop = await createShop(api);
      const statuses = [];
      for (let i = 0; i < 2; i++)
        statuses.push((await placeCardOrder(api, shop, 'tok_test_approved')).res.status);
      statuses.push((await placeCardOrder(api, shop, 'tok_test_declined_insufficient_funds')).res.status);
      const refused = await placeCardOrder(api, shop, 'tok_test_approved');
      expect(statuses).toEqual([201, 201, 201]);
      expect(refused.res.status).toBe(429);
      expect(refused.res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(refused.res.json.error.message).toContain('Muitas tentativas');
      // No order, no card payment for the refused one.
      expect(await api.count('card_payments')).toBe(3);
      expect(await api.count('orders')).toBe(3);
    });
  },
  { config: { orderRateLimitPerMinute: 3 } },
);
