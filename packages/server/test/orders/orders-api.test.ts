import { beforeAll, expect, it } from 'vitest';
import { abandonDueOrders } from '../../src/flows/abandon-orders.js';
import { newUuid } from '../../src/platform/values/ids.js';
import { startNodeDuties } from '../../src/channels/server/service.js';
import { eventually, silentLog } from '../webhooks/delivery-harness.js';
import { BUYER, chargeOfOrder, createShop, pageRequest, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { eventObjectsFor, orderIdOf } from './orders-support.js';

const MINUTE = 60_000;

describeEachDatabase('orders as an API resource', (api) => {
  let shop: Shop;
  beforeAll(async () => {
    shop = await createShop(api);
  });

  const getOrder = async (id: string) => (await api.as(shop.key).get(`/orders/${id}`)).body;
  const place = async (body: Record<string, unknown> = {}, on: Shop = shop) => {
    const { res, token } = await placeOrder(api, on, body);
    expect(res.status, res.text).toBe(201);
    return { token: token!, id: await orderIdOf(api, token!) };
  };

  it('GET /orders/{id} answers exactly the order, and order.created carries it with its absolute order_url', async () => {
    await api.as(shop.key).post('/coupons', { code: 'DEZ', percent_off: 10 });
    const { token, id } = await place({ bump: true, coupon: 'dez' });
    const chargeId = await chargeOfOrder(api, token);
    const res = await api.as(shop.key).get(`/orders/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'order',
      id,
      status: 'pending',
      product_id: shop.product.id,
      items: [
        { product_id: shop.product.id, nome: 'Curso de Violão', amount: 90, kind: 'product' },
        { product_id: shop.bump.id, nome: 'E-book bônus', amount: 9.9, kind: 'order_bump' },
      ],
      coupon: { code: 'DEZ', discount: 10 },
      amount: 99.9,
      customer: {
        name: BUYER.name,
        email: BUYER.email,
        document: '52998224725',
        whatsapp: '+5511987654321',
      },
      tracking: {},
      pix_charge_id: chargeId,
      sale_id: null,
      recovered: false,
      recovery_email: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      paid_at: null,
      abandoned_at: null,
    });
    const created = await eventObjectsFor(api, shop.storeId, 'order.created', id);
    expect(created).toEqual([{ ...res.body, order_url: `${api.config.publicUrl}/p/o/${token}` }]);
    // The event's link is the page itself.
    expect((await pageRequest(api, 'GET', `/p/o/${token}`)).status).toBe(200);
  });

  it('lists newest first with keyset pagination, and filters by status, product and creation time', async () => {
    const other = (await api.as(shop.key).post('/products', { nome: 'Mentoria', preco: 50 })).body;
    const otherPath = `/p/${shop.handle}/${other.slug}`;
    const first = await place();
    const second = await place({}, { ...shop, pagePath: otherPath });
    const third = await place();
    await pageRequest(api, 'POST', `/p/o/${third.token}/simulate`, {});

    const all = (await api.as(shop.key).get('/orders?limit=100')).body.data.map((o: any) => o.id);
    expect(all.slice(0, 3)).toEqual([third.id, second.id, first.id]);

    const page1 = (await api.as(shop.key).get('/orders?limit=2')).body;
    expect(page1.data.map((o: any) => o.id)).toEqual([third.id, second.id]);
    expect(page1.has_more).toBe(true);
    const page2 = (await api.as(shop.key).get(`/orders?limit=2&starting_after=${page1.next_cursor}`)).body;
    expect(page2.data[0].id).toBe(first.id);

    const paid = (await api.as(shop.key).get('/orders?status=paid')).body.data;
    expect(paid.map((o: any) => o.id)).toContain(third.id);
    expect(paid.every((o: any) => o.status === 'paid' && o.sale_id !== null && o.paid_at !== null)).toBe(
      true,
    );
    const byProduct = (await api.as(shop.key).get(`/orders?product_id=${other.id}`)).body.data;
    expect(byProduct.map((o: any) => o.id)).toEqual([second.id]);

    // created[gte] and created[lte] include their own instant, and exclude a millisecond past it.
    const at = (await getOrder(second.id)).created_at as string;
    const ms = (iso: string, delta: number) => new Date(Date.parse(iso) + delta).toISOString();
    const window = async (gte: string, lte: string) =>
      (
        await api
          .as(shop.key)
          .get(
            `/orders?created[gte]=${encodeURIComponent(gte)}&created[lte]=${encodeURIComponent(lte)}&limit=100`,
          )
      ).body.data.map((o: any) => o.id);
    expect(await window(at, at)).toContain(second.id);
    expect(await window(ms(at, 1), ms(at, 1000 * 60))).not.toContain(second.id);
    expect(await window(ms(at, -60_000), ms(at, -1))).not.toContain(second.id);

    expectError(await api.as(shop.key).get('/orders?status=lost'), 400, 'invalid_request', 'status');
    expectError(await api.as(shop.key).get('/orders?product_id=nope'), 400, 'invalid_request', 'product_id');
    expectError(
      await api.as(shop.key).get('/orders?created[gte]=yesterday'),
      400,
      'invalid_request',
      'created[gte]',
    );
    expectError(await api.as(shop.key).get('/orders?limit=101'), 400, 'invalid_request', 'limit');
    expectError(await api.as(shop.key).get('/orders?color=red'), 400, 'invalid_request', 'color');
  });

  it('isolation: another store’s order and the other mode’s orders are not found; cursors do not cross', async () => {
    const mine = await place();
    const otherShop = await createShop(api, {}, 'Outra Loja');
    const theirs = await place({}, otherShop);
    expectError(await api.as(shop.key).get(`/orders/${theirs.id}`), 404, 'not_found');
    expect((await api.as(shop.key).get('/orders?limit=100')).body.data.map((o: any) => o.id)).not.toContain(
      theirs.id,
    );
    expectError(await api.as(shop.key).get(`/orders/${newUuid()}`), 404, 'not_found');
    expectError(await api.as(shop.key).get('/orders/not-an-id'), 404, 'not_found');

    // A live order of this store (as a live checkout would write it) is seen by live keys only.
    const row = await api.db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', mine.id)
      .executeTakeFirstOrThrow();
    const liveId = newUuid();
    await api.db
      .insertInto('orders')
      .values({
        ...row,
        id: liveId,
        livemode: 1,
        token_hash: `live-${liveId}`,
        token_sealed: null,
        pix_charge_id: null,
      })
      .execute();
    const live = await api.createKey(shop.storeId, ['orders:read', 'orders:write'], 'live');
    expectError(await api.as(shop.key).get(`/orders/${liveId}`), 404, 'not_found');
    expect((await api.as(live).get(`/orders/${liveId}`)).body.id).toBe(liveId);
    const liveList = (await api.as(live).get('/orders')).body.data.map((o: any) => o.id);
    expect(liveList).toEqual([liveId]);
    expectError(await api.as(live).get(`/orders/${mine.id}`), 404, 'not_found');
    const testPage = (await api.as(shop.key).get('/orders?limit=1')).body;
    expectError(
      await api.as(live).get(`/orders?starting_after=${testPage.next_cursor}`),
      400,
      'invalid_request',
      'starting_after',
    );
    // Test mode only: a live key cannot simulate an abandonment.
    expectError(await api.as(live).post(`/orders/${liveId}/simulate_abandonment`), 400, 'invalid_request');
    expect((await api.as(live).get(`/orders/${liveId}`)).body.status).toBe('pending');
  });

  it('scopes: orders:read reads, orders:write simulates; neither implies the other', async () => {
    const { id } = await place();
    const reader = await api.createKey(shop.storeId, ['orders:read']);
    const writer = await api.createKey(shop.storeId, ['orders:write']);
    const neither = await api.createKey(shop.storeId, ['sales:read', 'pix:read']);
    expect((await api.as(reader).get(`/orders/${id}`)).status).toBe(200);
    expect((await api.as(reader).get('/orders')).status).toBe(200);
    expectError(await api.as(neither).get('/orders'), 403, 'insufficient_scope');
    expectError(await api.as(neither).get(`/orders/${id}`), 403, 'insufficient_scope');
    expectError(await api.as(writer).get(`/orders/${id}`), 403, 'insufficient_scope');
    expectError(await api.as(reader).post(`/orders/${id}/simulate_abandonment`), 403, 'insufficient_scope');
    expect((await api.as(writer).post(`/orders/${id}/simulate_abandonment`)).status).toBe(200);
    expectError(await api.request('GET', '/orders'), 401, 'unauthorized');
  });

  it('simulate_abandonment: a pending order is abandoned at once with order.abandoned; anything else is 400', async () => {
    const { token, id } = await place();
    const res = await api.as(shop.key).post(`/orders/${id}/simulate_abandonment`);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'abandoned', recovery_email: null });
    expect(Date.parse(res.body.abandoned_at)).toBeGreaterThanOrEqual(Date.parse(res.body.created_at));
    expect(await getOrder(id)).toEqual(res.body);
    const events = await eventObjectsFor(api, shop.storeId, 'order.abandoned', id);
    expect(events).toEqual([{ ...res.body, order_url: `${api.config.publicUrl}/p/o/${token}` }]);
    expectError(await api.as(shop.key).post(`/orders/${id}/simulate_abandonment`), 400, 'invalid_request');

    const paid = await place();
    await pageRequest(api, 'POST', `/p/o/${paid.token}/simulate`, {});
    expectError(
      await api.as(shop.key).post(`/orders/${paid.id}/simulate_abandonment`),
      400,
      'invalid_request',
    );
    expectError(await api.as(shop.key).post(`/orders/${newUuid()}/simulate_abandonment`), 404, 'not_found');
  });

  it('the store canceling the Pix cancels the order; the sweep and the simulation leave it alone', async () => {
    const { token, id } = await place();
    await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, token)}/cancel`);
    expect((await getOrder(id)).status).toBe('canceled');
    expectError(await api.as(shop.key).post(`/orders/${id}/simulate_abandonment`), 400, 'invalid_request');
    await abandonDueOrders(api.db, api.config, new Date(Date.now() + 31 * MINUTE));
    expect((await getOrder(id)).status).toBe('canceled');
    expect((await api.as(shop.key).get('/orders?status=canceled')).body.data.map((o: any) => o.id)).toContain(
      id,
    );
  });

  it('the sweep abandons orders unpaid 30 minutes after they were placed, once, and not a millisecond sooner', async () => {
    const sweepShop = await createShop(api, {}, 'Loja Varrida');
    const { id } = await place({}, sweepShop);
    const paid = await place({}, sweepShop);
    await pageRequest(api, 'POST', `/p/o/${paid.token}/simulate`, {});
    const createdAt = Date.parse((await api.as(sweepShop.key).get(`/orders/${id}`)).body.created_at);

    expect(await abandonDueOrders(api.db, api.config, new Date(createdAt + 30 * MINUTE - 1))).toBe(0);
    expect((await api.as(sweepShop.key).get(`/orders/${id}`)).body.status).toBe('pending');
    const asOf = new Date(createdAt + 30 * MINUTE);
    expect(await abandonDueOrders(api.db, api.config, asOf)).toBeGreaterThanOrEqual(1);
    const order = (await api.as(sweepShop.key).get(`/orders/${id}`)).body;
    expect(order).toMatchObject({ status: 'abandoned', abandoned_at: asOf.toISOString() });
    expect((await api.as(sweepShop.key).get(`/orders/${paid.id}`)).body.status).toBe('paid');
    // A second sweep (another node) changes nothing and records nothing more.
    await abandonDueOrders(api.db, api.config, asOf);
    expect(await eventObjectsFor(api, sweepShop.storeId, 'order.abandoned', id)).toHaveLength(1);
    expect(await eventObjectsFor(api, sweepShop.storeId, 'order.abandoned', paid.id)).toEqual([]);
  });

  it('the node runs the sweep by itself: an order placed over 30 minutes ago is abandoned within a sweep interval', async () => {
    const { id } = await place();
    // Placed 31 minutes ago, as far as the database knows.
    await api.db
      .updateTable('orders')
      .set({ created_at: new Date(Date.now() - 31 * MINUTE).toISOString() })
      .where('id', '=', id)
      .execute();
    const duties = startNodeDuties({
      db: api.db,
      payments: api.payments,
      config: { ...api.config, worker: 'off' },
      log: silentLog,
    });
    try {
      const order = await eventually(async () => {
        const current = await getOrder(id);
        return current.status === 'abandoned' ? current : undefined;
      }, 20_000);
      expect(await eventObjectsFor(api, shop.storeId, 'order.abandoned', id)).toEqual([
        { ...order, order_url: expect.stringMatching(/\/p\/o\/[A-Za-z0-9_-]{22}$/) },
      ]);
    } finally {
      await duties.stop();
    }
  });

  it('an abandoned order paid through a renewed Pix is paid and recovered, and so is its sale', async () => {
    const { token, id } = await place();
    const firstCharge = await chargeOfOrder(api, token);
    await api.as(shop.key).post(`/orders/${id}/simulate_abandonment`);
    await api.as(shop.key).post(`/payments/pix/${firstCharge}/simulate_expiration`);
    const page = await pageRequest(api, 'GET', `/p/o/${token}`);
    expect(page.text).toContain('data-status="expired"');
    expect(page.text).toContain('id="renew"');
    const renewed = await pageRequest(api, 'POST', `/p/o/${token}/renew`, {});
    expect(renewed.status, renewed.text).toBe(200);
    expect(renewed.json.status).toBe('pending');
    const newCharge = await chargeOfOrder(api, token);
    expect(newCharge).not.toBe(firstCharge);
    expect(await getOrder(id)).toMatchObject({ status: 'abandoned', pix_charge_id: newCharge });

    await api.as(shop.key).post(`/payments/pix/${newCharge}/simulate_payment`);
    const order = await getOrder(id);
    expect(order).toMatchObject({ status: 'paid', recovered: true, pix_charge_id: newCharge });
    const sale = (await api.as(shop.key).get(`/sales/${order.sale_id}`)).body;
    expect(sale).toMatchObject({ recovered: true, pix_charge_id: newCharge, status: 'approved' });
    expect(order.paid_at).toBe(sale.created_at);
    // A sale of an order paid in time is not recovered.
    const plain = await place();
    await pageRequest(api, 'POST', `/p/o/${plain.token}/simulate`, {});
    const plainOrder = await getOrder(plain.id);
    expect(plainOrder.recovered).toBe(false);
    expect((await api.as(shop.key).get(`/sales/${plainOrder.sale_id}`)).body.recovered).toBe(false);
  });
});
