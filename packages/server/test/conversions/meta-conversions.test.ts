import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConversionWorker } from '../../src/flows/send-meta-conversions.js';
import { orderIdOf } from '../orders/orders-support.js';
import { BUYER, chargeOfOrder, createShop, pageRequest, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { HttpsReceiver } from '../support/https-receiver.js';
import { eventually } from '../webhooks/delivery-harness.js';
import {
  GRAPH_VERSION,
  conversionCount,
  conversionRows,
  metaError,
  newPixelId,
  sentTo,
  setMeta,
  sha256,
  startFakeGraph,
  startTestConversionWorker,
} from './meta-support.js';

const graph: HttpsReceiver = await startFakeGraph();
afterAll(() => graph.close());

const TOKEN = 'EAAB-test-token-123';

/**
 * Meta Conversions API: a store with Meta set gets `InitiateCheckout` when a page order is placed and
 * `Purchase` when its sale is approved, sent by the worker over HTTPS to the Graph API with hashed
 * buyer data and the same event ids the browser pixel uses; temporary failures are retried, a refused
 * token fails for good, and the sale is never touched. Stores without Meta send nothing.
 */
describeEachDatabase('Meta conversion events', (api) => {
  let worker: ConversionWorker;
  beforeAll(() => {
    worker = startTestConversionWorker(api, graph);
  });
  afterAll(() => worker.stop());

  async function metaShop(meta: Record<string, unknown> = {}): Promise<Shop & { pixelId: string }> {
    const shop = await createShop(api);
    const pixelId = newPixelId();
    await setMeta(api, shop.key, { pixel_id: pixelId, access_token: TOKEN, ...meta });
    return { ...shop, pixelId };
  }

  async function saleIdOf(token: string): Promise<string> {
    const row = await api.db
      .selectFrom('orders')
      .select('sale_id')
      .where('id', '=', await orderIdOf(api, token))
      .executeTakeFirstOrThrow();
    return row.sale_id!;
  }

  it('sends InitiateCheckout at the page order and Purchase at the payment, hashed, with the same event ids', async () => {
    const shop = await metaShop({ test_event_code: 'TEST123' });
    const before = await conversionCount('Purchase', 'sent');
    const tracking = { fbclid: 'IwAR0abc', utm_source: 'facebook' };
    const { res, token } = await placeOrder(api, shop, { bump: true, tracking });
    expect(res.status, res.text).toBe(201);
    const orderId = await orderIdOf(api, token!);

    const [initiate] = await eventually(
      async () => sentTo(graph, shop.pixelId).length >= 1 && sentTo(graph, shop.pixelId),
    );
    expect(initiate!.request.method).toBe('POST');
    expect(initiate!.request.path).toBe(`/${GRAPH_VERSION}/${shop.pixelId}/events`);
    expect(initiate!.request.headers['content-type']).toBe('application/json');
    expect(initiate!.body.access_token).toBe(TOKEN);
    expect(initiate!.body.test_event_code).toBe('TEST123');
    expect(initiate!.body.data).toHaveLength(1);
    const order = await api.db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', orderId)
      .executeTakeFirstOrThrow();
    expect(initiate!.event).toEqual({
      event_name: 'InitiateCheckout',
      event_time: Math.floor(Date.parse(order.created_at) / 1000),
      event_id: orderId,
      action_source: 'website',
      event_source_url: `${api.config.publicUrl}${shop.pagePath}`,
      user_data: {
        em: [sha256('maria@example.com')],
        ph: [sha256('5511987654321')],
        fn: [sha256('maria')],
        ln: [sha256('silva')],
        external_id: [sha256('52998224725')],
        client_ip_address: '127.0.0.1',
        client_user_agent: order.user_agent,
        fbc: `fb.1.${Date.parse(order.created_at)}.IwAR0abc`,
      },
      custom_data: {
        currency: 'BRL',
        value: 109.9,
        content_ids: [shop.product.id, shop.bump.id],
        content_type: 'product',
        order_id: orderId,
      },
    });
    // Nothing personal leaves in the clear.
    expect(initiate!.request.body).not.toContain('maria@example.com');
    expect(initiate!.request.body).not.toContain('52998224725');

    const paid = await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
    expect(paid.status, paid.text).toBe(200);
    const saleId = await saleIdOf(token!);
    const purchase = (await eventually(async () => sentTo(graph, shop.pixelId)[1]))!;
    expect(purchase.event).toMatchObject({
      event_name: 'Purchase',
      event_id: saleId,
      action_source: 'website',
      event_source_url: `${api.config.publicUrl}${shop.pagePath}`,
      user_data: { em: [sha256('maria@example.com')], fbc: initiate!.event.user_data.fbc },
      custom_data: {
        currency: 'BRL',
        value: 109.9,
        content_ids: [shop.product.id, shop.bump.id],
        order_id: orderId,
      },
    });
    const rows = await eventually(async () => {
      const all = await conversionRows(api, shop.storeId);
      return all.every((row) => row.status === 'sent') && all;
    });
    expect(rows.map((row) => [row.kind, row.event_id, row.attempts, row.response_status])).toEqual([
      ['InitiateCheckout', orderId, 1, 200],
      ['Purchase', saleId, 1, 200],
    ]);
    expect(rows.every((row) => row.next_attempt_at === null && row.sent_at !== null)).toBe(true);
    expect(await conversionCount('Purchase', 'sent')).toBe(before + 1);
  });

  it('sends a Purchase for a charge paid through the API (no page order: action source other)', async () => {
    const shop = await metaShop();
    const charge = await api.as(shop.key).post('/payments/pix', {
      amount: 42.5,
      product_id: shop.product.id,
      customer: { name: 'João', email: 'Joao@Example.COM', document: BUYER.document },
    });
    expect(charge.status, charge.text).toBe(201);
    await api.as(shop.key).post(`/payments/pix/${charge.body.id}/simulate_payment`);
    const sale = await api.db
      .selectFrom('sales')
      .select('id')
      .where('pix_charge_id', '=', charge.body.id)
      .executeTakeFirstOrThrow();
    const [sent] = await eventually(
      async () => sentTo(graph, shop.pixelId).length === 1 && sentTo(graph, shop.pixelId),
    );
    expect(sent!.body.test_event_code).toBeUndefined();
    expect(sent!.event).toMatchObject({
      event_name: 'Purchase',
      event_id: sale.id,
      action_source: 'other',
      user_data: {
        em: [sha256('joao@example.com')],
        fn: [sha256('joão')],
        external_id: [sha256('52998224725')],
      },
      custom_data: { value: 42.5, content_ids: [shop.product.id], order_id: sale.id },
    });
    expect(sent!.event.user_data.client_ip_address).toBeUndefined();
    expect(sent!.event.event_source_url).toBeUndefined();
  });

  it('retries a 500, a timeout and a 503, then succeeds', async () => {
    const shop = await metaShop();
    const before = await conversionCount('InitiateCheckout', 'retrying');
    graph.respondWith(
      { status: 500, body: 'oops' },
      { hang: true },
      metaError(503, 'Service temporarily unavailable', 2),
    );
    const { token } = await placeOrder(api, shop);
    const orderId = await orderIdOf(api, token!);
    const row = await eventually(async () => {
      const [found] = await conversionRows(api, shop.storeId);
      return found?.status === 'sent' && found;
    });
    expect(row).toMatchObject({ kind: 'InitiateCheckout', event_id: orderId, attempts: 4, last_error: null });
    const sent = sentTo(graph, shop.pixelId);
    expect(sent.map((s) => s.event.event_id)).toEqual([orderId, orderId, orderId, orderId]);
    expect(await conversionCount('InitiateCheckout', 'retrying')).toBe(before + 3);
  });

  it('gives up on a refused token at once, records why, and leaves the sale alone', async () => {
    const shop = await metaShop();
    const failedBefore = await conversionCount('Purchase', 'failed');
    graph.respondWith(
      metaError(400, 'Invalid OAuth access token - Cannot parse access token'),
      metaError(401, 'Invalid OAuth access token - Cannot parse access token'),
    );
    const { token } = await placeOrder(api, shop);
    await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
    const saleId = await saleIdOf(token!);
    const rows = await eventually(async () => {
      const all = await conversionRows(api, shop.storeId);
      return all.length === 2 && all.every((row) => row.status === 'failed') && all;
    });
    const purchase = rows.find((row) => row.kind === 'Purchase')!;
    expect(purchase).toMatchObject({
      event_id: saleId,
      attempts: 1,
      response_status: expect.any(Number),
      next_attempt_at: null,
      last_error: expect.stringMatching(/^Meta answered 40[01]: Invalid OAuth access token/),
    });
    expect(sentTo(graph, shop.pixelId)).toHaveLength(2);
    expect(await conversionCount('Purchase', 'failed')).toBe(failedBefore + 1);
    const sale = await api.as(shop.key).get(`/sales/${saleId}`);
    expect(sale.body).toMatchObject({ id: saleId, status: 'approved' });
  });

  it('queues and sends nothing for a store without Meta', async () => {
    const shop = await createShop(api);
    const { token } = await placeOrder(api, shop);
    await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
    const charge = await api.as(shop.key).post('/payments/pix', { amount: 10 });
    await api.as(shop.key).post(`/payments/pix/${charge.body.id}/simulate_payment`);
    expect(await conversionRows(api, shop.storeId)).toEqual([]);
    expect(await chargeOfOrder(api, token!)).toBeTruthy();
  });

  it('settles an event whose store removed Meta before it went out, sending nothing', async () => {
    const shop = await metaShop();
    await worker.stop();
    try {
      await placeOrder(api, shop);
      await setMeta(api, shop.key, null);
    } finally {
      worker = startTestConversionWorker(api, graph);
    }
    const [row] = await eventually(async () => {
      const all = await conversionRows(api, shop.storeId);
      return all[0]?.status === 'failed' && all;
    });
    expect(row!.last_error).toMatch(/removed/);
    expect(row!.attempts).toBe(0);
    expect(sentTo(graph, shop.pixelId)).toEqual([]);
  });
});
