import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  chromiumSuiteTitle,
  failWithoutRequiredChromium,
  launchChromium,
} from '../support/chromium.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import {
  allowedHosts,
  eventually,
  requestsTo,
  uniqueUrl,
  useReceiverAndWorker,
} from '../webhooks/delivery-harness.js';
import { BUYER, chargeOfOrder, createShop, pageRequest } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { eventObjectsFor, orderIdOf } from './orders-support.js';

/*
 * Campaign attribution: the purchase page keeps the utm_*, src, sck, fbclid and gclid of its own URL
 * and sends them with the order; they become `tracking` on the order, its charge and its sale, and in
 * their events. The page never refuses a buyer over an ad's URL: unknown parameters are dropped and a
 * value over 200 characters is cut to 200. Through the API, `tracking` is validated (400 naming it).
 */

const LONG = 'x'.repeat(250);
const CAMPAIGN = {
  utm_source: 'facebook',
  utm_medium: 'cpc',
  utm_campaign: 'black-friday',
  utm_term: 'violão iniciante',
  utm_content: 'vídeo 🎸',
  src: 'bio-instagram',
  sck: 'sck-42',
  fbclid: 'IwAR0abcDEF',
  gclid: LONG,
};
const KEPT = { ...CAMPAIGN, gclid: 'x'.repeat(200) };

let browser: Browser | undefined;
beforeAll(async () => {
  if (chromiumAvailable) browser = await launchChromium();
});
afterAll(() => browser?.close());

failWithoutRequiredChromium();

describe.skipIf(!chromiumAvailable)(chromiumSuiteTitle('attribution in headless Chromium'), () => {
  describeEachDatabase(
    'a buyer arriving from a campaign',
    (api) => {
      const delivery = useReceiverAndWorker(api);
      let shop: Shop;
      beforeAll(async () => {
        shop = await createShop(api);
      });

      it('the order, its charge, its sale, their events and the sale.approved webhook carry the tracking', async () => {
        const receiver = delivery.receiver();
        const hook = uniqueUrl(receiver);
        const endpoint = await api.as(shop.key).post('/webhooks', { url: hook, events: ['sale.approved'] });
        expect(endpoint.status, endpoint.text).toBe(201);
        const query = new URLSearchParams({ ...CAMPAIGN, foo: 'bar', utm_id: '7', ref: 'x' });
        const context = await browser!.newContext({ viewport: { width: 360, height: 900 } });
        const page = await context.newPage();
        await page.goto(`${api.baseUrl}${shop.pagePath}?${query}`);
        await page.fill('#name', BUYER.name);
        await page.fill('#email', BUYER.email);
        await page.fill('#document', BUYER.document);
        await Promise.all([page.waitForURL(/\/p\/o\/[A-Za-z0-9_-]{22}$/), page.click('#submit')]);
        const token = page.url().split('/').pop()!;
        await page.locator('#simulate').click();
        await page.locator('#paid').waitFor({ state: 'visible' });
        await context.close();

        const order = (await api.as(shop.key).get(`/orders/${await orderIdOf(api, token)}`)).body;
        expect(order.tracking).toEqual(KEPT);
        const charge = (await api.as(shop.key).get(`/payments/pix/${await chargeOfOrder(api, token)}`)).body;
        expect(charge.tracking).toEqual(KEPT);
        const sale = (await api.as(shop.key).get(`/sales/${order.sale_id}`)).body;
        expect(sale.tracking).toEqual(KEPT);
        expect(Object.keys(sale.tracking)).not.toContain('foo');

        const [created] = await eventObjectsFor(api, shop.storeId, 'order.created', order.id);
        expect(created.tracking).toEqual(KEPT);
        const [paid] = await eventObjectsFor(api, shop.storeId, 'pix.paid', charge.id);
        expect(paid.tracking).toEqual(KEPT);

        const [delivered] = await eventually(async () => {
          const got = requestsTo(receiver, hook);
          return got.length > 0 ? got : undefined;
        });
        const event = JSON.parse(delivered!.body);
        expect(event.type).toBe('sale.approved');
        expect(event.data.object).toMatchObject({ id: sale.id, tracking: KEPT });
      }, 90_000);

      it('a page opened without campaign parameters gives `{}` everywhere', async () => {
        const context = await browser!.newContext();
        const page = await context.newPage();
        await page.goto(`${api.baseUrl}${shop.pagePath}?foo=1`);
        await page.fill('#name', BUYER.name);
        await page.fill('#email', BUYER.email);
        await page.fill('#document', BUYER.document);
        await Promise.all([page.waitForURL(/\/p\/o\//), page.click('#submit')]);
        const token = page.url().split('/').pop()!;
        await context.close();
        expect((await api.as(shop.key).get(`/orders/${await orderIdOf(api, token)}`)).body.tracking).toEqual(
          {},
        );
        const charge = (await api.as(shop.key).get(`/payments/pix/${await chargeOfOrder(api, token)}`)).body;
        expect(charge.tracking).toEqual({});
      }, 60_000);
    },
    { config: { webhookAllowedHosts: allowedHosts, orderRateLimitPerMinute: 1000 } },
  );
});

describeEachDatabase('tracking without a browser', (api) => {
  let shop: Shop;
  beforeAll(async () => {
    shop = await createShop(api);
  });

  it('the page keeps known keys only, cut to 200 characters, whatever a client sends', async () => {
    const res = await pageRequest(api, 'POST', `${shop.pagePath}/orders`, {
      ...BUYER,
      bump: false,
      tracking: { utm_source: 'y'.repeat(201), utm_medium: '', evil: 'x', gclid: 'g'.repeat(200) },
    });
    expect(res.status, res.text).toBe(201);
    const token = (res.json.order_url as string).split('/').pop()!;
    const order = (await api.as(shop.key).get(`/orders/${await orderIdOf(api, token)}`)).body;
    expect(order.tracking).toEqual({ utm_source: 'y'.repeat(200), gclid: 'g'.repeat(200) });

    // Junk is bounded before anything is kept: more than 30 parameters, or one over 2000 characters.
    const junk = async (tracking: unknown) =>
      (await pageRequest(api, 'POST', `${shop.pagePath}/orders`, { ...BUYER, bump: false, tracking })).status;
    expect(await junk(Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`p${i}`, 'x'])))).toBe(400);
    expect(await junk({ utm_source: 'x'.repeat(2001) })).toBe(400);
    expect(await junk({ utm_source: 'x'.repeat(2000) })).toBe(201);
  });

  it('POST /payments/pix takes tracking; its sale and events carry it', async () => {
    const tracking = { utm_source: 'google', gclid: 'z'.repeat(200) };
    const created = await api.as(shop.key).post('/payments/pix', { amount: 10, tracking });
    expect(created.status, created.text).toBe(201);
    expect(created.body.tracking).toEqual(tracking);
    const paid = await api.as(shop.key).post(`/payments/pix/${created.body.id}/simulate_payment`);
    expect(paid.body.tracking).toEqual(tracking);
    const sale = (await api.as(shop.key).get('/sales')).body.data.find(
      (s: any) => s.pix_charge_id === created.body.id,
    );
    expect(sale).toMatchObject({ tracking, recovered: false });
    const [approved] = await eventObjectsFor(api, shop.storeId, 'sale.approved', sale.id);
    expect(approved.tracking).toEqual(tracking);
    // Without tracking: `{}`.
    const plain = await api.as(shop.key).post('/payments/pix', { amount: 10 });
    expect(plain.body.tracking).toEqual({});
    // Reusing the external_id with other tracking names the difference.
    await api.as(shop.key).post('/payments/pix', { amount: 10, external_id: 'trk-1', tracking });
    const again = await api
      .as(shop.key)
      .post('/payments/pix', { amount: 10, external_id: 'trk-1', tracking: { utm_source: 'bing' } });
    expect(again.status).toBe(200);
    expect(again.headers.get('external-id-mismatch')).toBe('tracking');
  });

  it('POST /payments/pix refuses an unknown key, an empty or over-long value, a non-string, naming it', async () => {
    const create = (tracking: unknown) => api.as(shop.key).post('/payments/pix', { amount: 10, tracking });
    expectError(await create({ utm_source: 'a'.repeat(201) }), 400, 'invalid_request', 'tracking.utm_source');
    expectError(await create({ fbclid: '' }), 400, 'invalid_request', 'tracking.fbclid');
    expectError(await create({ utm_id: '1' }), 400, 'invalid_request', 'tracking.utm_id');
    expectError(await create({ sck: 7 }), 400, 'invalid_request', 'tracking.sck');
    expectError(await create('utm_source=x'), 400, 'invalid_request', 'tracking');
    expectError(await create({ src: 'a\u0000b' }), 400, 'invalid_request', 'tracking.src');
    expect((await create({ utm_source: 'a'.repeat(200) })).status).toBe(201);
  });
});
