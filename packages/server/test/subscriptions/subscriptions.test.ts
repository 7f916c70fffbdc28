import { beforeAll, expect, it } from 'vitest';
import { parseBrCode } from '../../src/platform/brcode/index.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { decodeQr } from '../pix/pix-test-helpers.js';
import { chargeOfOrder, createShop, placeOrder } from '../pages/page-support.js';
import { BUYER, recurringProduct, subscribe } from './subscription-helpers.js';
import { eventTypesOf } from '../support/store-records.js';

describeEachDatabase('subscriptions (test mode): creation, life cycle, isolation', (api) => {
  let key: string;
  let storeId: string;
  let product: any;
  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
    product = await recurringProduct(api, key);
  });

  it('products take recorrencia and retry_policy (default 3_in_7_days), and refuse bad values', async () => {
    expect(product).toMatchObject({ recorrencia: 'mensal', retry_policy: '3_in_7_days', preco: 49.9 });
    const once = await api.as(key).post('/products', { nome: 'Ebook', preco: 10 });
    expect(once.body).toMatchObject({ recorrencia: null, retry_policy: '3_in_7_days' });
    const patched = await api
      .as(key)
      .patch(`/products/${once.body.id}`, { recorrencia: 'anual', retry_policy: 'none' });
    expect(patched.body).toMatchObject({ recorrencia: 'anual', retry_policy: 'none' });
    expect(
      (await api.as(key).patch(`/products/${once.body.id}`, { recorrencia: null })).body.recorrencia,
    ).toBeNull();
    expectError(
      await api.as(key).post('/products', { nome: 'X', preco: 1, recorrencia: 'diaria' }),
      400,
      'invalid_request',
      'recorrencia',
    );
    expectError(
      await api.as(key).post('/products', { nome: 'X', preco: 1, retry_policy: '5x' }),
      400,
      'invalid_request',
      'retry_policy',
    );
    // Pix Automático cannot bill R$ 0,00.
    expectError(
      await api.as(key).post('/products', { nome: 'X', preco: 0, recorrencia: 'mensal' }),
      400,
      'invalid_request',
      'preco',
    );
    expect(
      (await api.as(key).post('/products', { nome: 'X', preco: 0.01, recorrencia: 'mensal' })).status,
    ).toBe(201);
    expectError(
      await api.as(key).patch(`/products/${product.id}`, { preco: 0 }),
      400,
      'invalid_request',
      'preco',
    );
  });

  it('creates a pending subscription with a first charge whose QR is its code (201, subscription.created after pix.created)', async () => {
    const res = await subscribe(api, key, product.id);
    expect(res.status).toBe(201);
    const sub = res.body;
    expect(sub).toMatchObject({
      object: 'subscription',
      status: 'pending',
      product_id: product.id,
      amount: 49.9,
      recorrencia: 'mensal',
      retry_policy: '3_in_7_days',
      cycle: 0,
      current_period_start: null,
      next_charge_date: null,
      cancel_reason: null,
      livemode: false,
      order_id: null,
      customer: BUYER,
      pix: { journey: 'JORNADA_3' },
    });
    expect(sub.id).toMatch(/^sub_[0-9A-Za-z]{24}$/);
    expect(sub.pix.id_rec).toMatch(/^RR\d{16}[0-9A-Za-z]{11}$/);
    expect(sub.first_charge).toMatchObject({
      object: 'pix_charge',
      status: 'pending',
      amount: 49.9,
      product_id: product.id,
    });
    expect(sub.first_charge_id).toBe(sub.first_charge.id);
    expect(parseBrCode(sub.first_charge.pix.copy_paste).amount).toBe(49.9);
    expect(decodeQr(sub.first_charge.pix.qr_code_base64)).toBe(sub.first_charge.pix.copy_paste);
    const { first_charge: _charge, ...object } = sub;
    expect((await api.as(key).get(`/subscriptions/${sub.id}`)).body).toEqual(object);
    expect(await eventTypesOf(api, storeId, sub.first_charge.id)).toEqual(['pix.created']);
    expect(await eventTypesOf(api, storeId, sub.id)).toEqual(['subscription.created']);
  });

  it('copies the product at creation: a later price change does not touch the subscription', async () => {
    const own = await recurringProduct(api, key, {
      nome: 'Plano',
      preco: 20,
      recorrencia: 'semanal',
      retry_policy: 'none',
    });
    const sub = (await subscribe(api, key, own.id)).body;
    await api
      .as(key)
      .patch(`/products/${own.id}`, { preco: 99, recorrencia: 'anual', retry_policy: '3_in_7_days' });
    expect((await api.as(key).get(`/subscriptions/${sub.id}`)).body).toMatchObject({
      amount: 20,
      recorrencia: 'semanal',
      retry_policy: 'none',
    });
  });

  it('runs the whole life cycle through the simulate operations', async () => {
    const sub = (await subscribe(api, key, product.id)).body;
    // The first charge's payment pays and authorises: active, cycle 1, a sale with its cycle.
    expect((await api.as(key).post(`/payments/pix/${sub.first_charge.id}/simulate_payment`)).status).toBe(
      200,
    );
    const active = (await api.as(key).get(`/subscriptions/${sub.id}`)).body;
    expect(active).toMatchObject({ status: 'active', cycle: 1 });
    expect(active.current_period_start).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(active.next_charge_date).toBe(active.current_period_end);
    const [first] = (await api.as(key).get(`/sales?limit=100`)).body.data.filter(
      (s: any) => s.subscription_id === sub.id,
    );
    expect(first).toMatchObject({
      cycle: 1,
      amount: 49.9,
      pix_charge_id: sub.first_charge.id,
      product_id: product.id,
    });

    const renewed = await api.as(key).post(`/subscriptions/${sub.id}/simulate_renewal`);
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({
      status: 'active',
      cycle: 2,
      current_period_start: active.current_period_end,
    });
    const sales = (await api.as(key).get(`/sales?limit=100`)).body.data.filter(
      (s: any) => s.subscription_id === sub.id,
    );
    expect(sales.map((s: any) => s.cycle).sort()).toEqual([1, 2]);
    expect(sales.find((s: any) => s.cycle === 2)).toMatchObject({
      amount: 49.9,
      pix_charge_id: null,
      status: 'approved',
    });

    // A failed attempt with retries left → past_due; then the retry is paid → active again.
    const failed = await api.as(key).post(`/subscriptions/${sub.id}/simulate_failure`);
    expect(failed.body).toMatchObject({ status: 'past_due', cycle: 2 });
    const recovered = await api.as(key).post(`/subscriptions/${sub.id}/simulate_renewal`);
    expect(recovered.body).toMatchObject({ status: 'active', cycle: 3 });

    const canceled = await api.as(key).post(`/subscriptions/${sub.id}/simulate_buyer_cancel`);
    expect(canceled.body).toMatchObject({
      status: 'canceled',
      cancel_reason: 'buyer',
      next_charge_date: null,
    });
    expect(canceled.body.canceled_at).not.toBeNull();
    expectError(await api.as(key).post(`/subscriptions/${sub.id}/simulate_renewal`), 400, 'invalid_request');
    expectError(await api.as(key).post(`/subscriptions/${sub.id}/cancel`), 400, 'invalid_request');

    expect(await eventTypesOf(api, storeId, sub.id)).toEqual([
      'subscription.created',
      'subscription.activated',
      'subscription.renewed',
      'subscription.past_due',
      'subscription.renewed',
      'subscription.canceled',
    ]);
  });

  it('activation follows the sale: pix.paid, sale.approved, subscription.activated in that order', async () => {
    const sub = (await subscribe(api, key, product.id)).body;
    await api.as(key).post(`/payments/pix/${sub.first_charge.id}/simulate_payment`);
    const rows = await api.db
      .selectFrom('events')
      .select(['type', 'payload', 'created_at'])
      .where('store_id', '=', storeId)
      .where('type', 'in', ['pix.paid', 'sale.approved', 'subscription.activated'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    const mine = rows.filter((row) => {
      const object = JSON.parse(row.payload).data.object;
      return object.id === sub.id || object.id === sub.first_charge.id || object.subscription_id === sub.id;
    });
    expect(mine.map((row) => row.type)).toEqual(['pix.paid', 'sale.approved', 'subscription.activated']);
    expect(JSON.parse(mine[2]!.payload).data.object).toMatchObject({
      id: sub.id,
      status: 'active',
      cycle: 1,
    });
  });

  it('a charge of the API whose metadata names a subscription, even its first charge’s, starts nothing when paid', async () => {
    const sub = (await subscribe(api, key, product.id)).body;
    const named = await api.as(key).post('/payments/pix', {
      amount: 10,
      metadata: { subscription_id: sub.id },
    });
    expect(named.status).toBe(201);
    const paid = await api.as(key).post(`/payments/pix/${named.body.id}/simulate_payment`);
    expect(paid.status).toBe(200);
    const sale = await api.db
      .selectFrom('sales')
      .select(['subscription_id', 'cycle'])
      .where('pix_charge_id', '=', named.body.id)
      .executeTakeFirstOrThrow();
    expect(sale).toEqual({ subscription_id: null, cycle: null });
    expect((await api.as(key).get(`/subscriptions/${sub.id}`)).body.status).toBe('pending');
    // Its own first charge still activates it.
    await api.as(key).post(`/payments/pix/${sub.first_charge.id}/simulate_payment`);
    expect((await api.as(key).get(`/subscriptions/${sub.id}`)).body).toMatchObject({
      status: 'active',
      cycle: 1,
    });
  });

  it('without retries a failed cycle cancels at once (payment_failed); with them, the fourth failure does', async () => {
    const none = await recurringProduct(api, key, { nome: 'Sem retentativa', retry_policy: 'none' });
    const a = (await subscribe(api, key, none.id)).body;
    await api.as(key).post(`/payments/pix/${a.first_charge.id}/simulate_payment`);
    const ended = await api.as(key).post(`/subscriptions/${a.id}/simulate_failure`);
    expect(ended.body).toMatchObject({ status: 'canceled', cancel_reason: 'payment_failed' });
    expect(await eventTypesOf(api, storeId, a.id)).toEqual([
      'subscription.created',
      'subscription.activated',
      'subscription.canceled',
    ]);

    const b = (await subscribe(api, key, product.id)).body;
    await api.as(key).post(`/payments/pix/${b.first_charge.id}/simulate_payment`);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const res = await api.as(key).post(`/subscriptions/${b.id}/simulate_failure`);
      expect(res.body.status).toBe('past_due');
    }
    const fourth = await api.as(key).post(`/subscriptions/${b.id}/simulate_failure`);
    expect(fourth.body).toMatchObject({ status: 'canceled', cancel_reason: 'payment_failed' });
    // Entering past_due is told once, however many retries fail.
    expect(await eventTypesOf(api, storeId, b.id)).toEqual([
      'subscription.created',
      'subscription.activated',
      'subscription.past_due',
      'subscription.canceled',
    ]);
    const cycle = await api.db
      .selectFrom('subscription_cycles')
      .selectAll()
      .where('subscription_id', '=', b.id)
      .execute();
    expect(cycle).toMatchObject([{ cycle: 2, status: 'failed', failed_attempts: 4 }]);
  });

  it('the merchant cancels: a pending one loses its first charge, an active one ends (reason merchant)', async () => {
    const pending = (await subscribe(api, key, product.id)).body;
    const res = await api.as(key).post(`/subscriptions/${pending.id}/cancel`);
    expect(res.body).toMatchObject({ status: 'canceled', cancel_reason: 'merchant' });
    expect((await api.as(key).get(`/payments/pix/${pending.first_charge.id}`)).body.status).toBe('canceled');
    expectError(
      await api.as(key).post(`/payments/pix/${pending.first_charge.id}/simulate_payment`),
      400,
      'invalid_request',
    );

    const active = (await subscribe(api, key, product.id)).body;
    await api.as(key).post(`/payments/pix/${active.first_charge.id}/simulate_payment`);
    expect((await api.as(key).post(`/subscriptions/${active.id}/cancel`)).body).toMatchObject({
      status: 'canceled',
      cancel_reason: 'merchant',
    });
    expectError(
      await api.as(key).post(`/subscriptions/${active.id}/simulate_failure`),
      400,
      'invalid_request',
    );
  });

  it('refuses what cannot be subscribed, naming the param, and writes nothing', async () => {
    const before = await api.db
      .selectFrom('subscriptions')
      .select('id')
      .where('store_id', '=', storeId)
      .execute();
    const once = (await api.as(key).post('/products', { nome: 'Avulso', preco: 5 })).body;
    expectError(await subscribe(api, key, once.id), 400, 'invalid_request', 'product_id');
    const archived = await recurringProduct(api, key, { nome: 'Arquivado' });
    await api.as(key).post(`/products/${archived.id}/archive`);
    expectError(await subscribe(api, key, archived.id), 400, 'invalid_request', 'product_id');
    expectError(
      await subscribe(api, key, '00000000-0000-4000-a000-000000000000'),
      400,
      'invalid_request',
      'product_id',
    );
    const post = (body: unknown) => api.as(key).post('/subscriptions', body);
    expectError(
      await post({ product_id: product.id, customer: { name: 'Ana' } }),
      400,
      'invalid_request',
      'customer.document',
    );
    expectError(
      await post({ product_id: product.id, customer: { document: BUYER.document } }),
      400,
      'invalid_request',
      'customer.name',
    );
    expectError(
      await post({ product_id: product.id, customer: { ...BUYER, document: '52998224724' } }),
      400,
      'invalid_request',
      'customer.document',
    );
    expectError(
      await post({ product_id: product.id, customer: BUYER, tracking: { utm_source: 'x'.repeat(201) } }),
      400,
      'invalid_request',
      'tracking.utm_source',
    );
    expect(
      (await post({ product_id: product.id, customer: BUYER, tracking: { utm_source: 'x'.repeat(200) } }))
        .body.tracking,
    ).toEqual({ utm_source: 'x'.repeat(200) });
    const after = await api.db
      .selectFrom('subscriptions')
      .select('id')
      .where('store_id', '=', storeId)
      .execute();
    expect(after.length).toBe(before.length + 1);
  });

  it('is idempotent: the same Idempotency-Key replays the first answer and creates one subscription', async () => {
    const headers = { 'idempotency-key': `sub-${Date.now()}` };
    const first = await subscribe(api, key, product.id, headers);
    const again = await subscribe(api, key, product.id, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const rows = await api.db
      .selectFrom('subscriptions')
      .select('id')
      .where('first_charge_id', '=', first.body.first_charge.id)
      .execute();
    expect(rows).toHaveLength(1);
    const other = await api
      .as(key)
      .post('/subscriptions', { product_id: product.id, customer: { ...BUYER, name: 'Bia' } }, headers);
    expectError(other, 409, 'idempotency_conflict');
  });

  it('lists newest first with status and product filters, and checks the filters', async () => {
    const other = await recurringProduct(api, key, { nome: 'Outro', recorrencia: 'anual' });
    const a = (await subscribe(api, key, other.id)).body;
    const b = (await subscribe(api, key, other.id)).body;
    await api.as(key).post(`/payments/pix/${b.first_charge.id}/simulate_payment`);
    const byProduct = (await api.as(key).get(`/subscriptions?product_id=${other.id}`)).body;
    expect(byProduct.data.map((s: any) => s.id)).toEqual([b.id, a.id]);
    const activeOnes = (await api.as(key).get(`/subscriptions?product_id=${other.id}&status=active`)).body;
    expect(activeOnes.data.map((s: any) => s.id)).toEqual([b.id]);
    const page = (await api.as(key).get('/subscriptions?limit=1')).body;
    expect(page).toMatchObject({ object: 'list', has_more: true });
    const next = (await api.as(key).get(`/subscriptions?limit=1&starting_after=${page.next_cursor}`)).body;
    expect(next.data[0].id).not.toBe(page.data[0].id);
    expectError(await api.as(key).get('/subscriptions?status=paused'), 400, 'invalid_request', 'status');
    expectError(
      await api.as(key).get('/subscriptions?product_id=nope'),
      400,
      'invalid_request',
      'product_id',
    );
  });

  it('checks scopes, stores and modes: 403 without the scope, 404 across stores and modes, live keys 400 on simulations', async () => {
    const sub = (await subscribe(api, key, product.id)).body;
    const reader = await api.createKey(storeId, ['subscriptions:read'], 'test');
    const writer = await api.createKey(storeId, ['subscriptions:write'], 'test');
    expectError(await subscribe(api, reader, product.id), 403, 'insufficient_scope');
    expectError(await api.as(reader).post(`/subscriptions/${sub.id}/cancel`), 403, 'insufficient_scope');
    expectError(await api.as(writer).get(`/subscriptions/${sub.id}`), 403, 'insufficient_scope');
    expectError(await api.as(writer).get('/subscriptions'), 403, 'insufficient_scope');
    expect((await api.as(reader).get(`/subscriptions/${sub.id}`)).status).toBe(200);

    const other = await api.createStore();
    expectError(await api.as(other.key).get(`/subscriptions/${sub.id}`), 404, 'not_found');
    expectError(await api.as(other.key).post(`/subscriptions/${sub.id}/cancel`), 404, 'not_found');
    expect((await api.as(other.key).get('/subscriptions')).body.data).toEqual([]);
    // Another store's product is not there to subscribe to.
    expectError(await subscribe(api, other.key, product.id), 400, 'invalid_request', 'product_id');

    const live = await api.createKey(storeId, undefined, 'live');
    expectError(await api.as(live).get(`/subscriptions/${sub.id}`), 404, 'not_found');
    expect((await api.as(live).get('/subscriptions')).body.data).toEqual([]);
    for (const operation of ['simulate_renewal', 'simulate_failure', 'simulate_buyer_cancel']) {
      expectError(await api.as(live).post(`/subscriptions/${sub.id}/${operation}`), 400, 'invalid_request');
    }
    // A live key of a store without a PSP cannot subscribe anyone.
    expectError(await subscribe(api, live, product.id), 400, 'provider_not_configured');
    expectError(await api.as(key).get('/subscriptions/sub_nope'), 404, 'not_found');
    expect((await api.as(key).get(`/subscriptions/${sub.id}`)).body.status).toBe('pending');
  });

  it('expires a subscription whose first charge expired or was canceled unpaid (never authorised)', async () => {
    const a = (await subscribe(api, key, product.id)).body;
    const b = (await subscribe(api, key, product.id)).body;
    await api.as(key).post(`/payments/pix/${a.first_charge.id}/simulate_expiration`);
    await api.as(key).post(`/payments/pix/${b.first_charge.id}/cancel`);
    const { expireUnauthorised } = await import('../../src/domain/subscriptions/subscriptions-repository.js');
    const expired = await expireUnauthorised(api.db, { storeId });
    expect(expired.sort()).toEqual([a.id, b.id].sort());
    expect((await api.as(key).get(`/subscriptions/${a.id}`)).body.status).toBe('expired');
    expect((await api.as(key).get(`/subscriptions/${b.id}`)).body.status).toBe('expired');
    expect(await expireUnauthorised(api.db, { storeId })).toEqual([]);
  });

  it('the purchase page subscribes: bump ignored, a coupon refused, the order’s Pix is the first charge', async () => {
    const shop = await createShop(api);
    await api.as(shop.key).post('/coupons', { code: 'CLUBE10', percent_off: 10 });
    const monthly = await recurringProduct(api, shop.key, {
      order_bump_enabled: true,
      order_bump_product_id: shop.bump.id,
    });
    const page = { ...shop, pagePath: `/p/${shop.handle}/${monthly.slug}` };
    const refused = await placeOrder(api, page, { coupon: 'CLUBE10' });
    expect(refused.res.status).toBe(400);
    expect(refused.res.json.fields).toEqual({ coupon: 'Cupons não valem para assinaturas.' });

    const { res, token } = await placeOrder(api, page, { bump: true });
    expect(res.status).toBe(201);
    const chargeId = await chargeOfOrder(api, token!);
    const [sub] = (await api.as(shop.key).get(`/subscriptions?product_id=${monthly.id}`)).body.data;
    expect(sub).toMatchObject({
      status: 'pending',
      first_charge_id: chargeId,
      amount: 49.9,
      customer: { name: 'Maria da Silva', document: '52998224725' },
    });
    const order = await api.db
      .selectFrom('orders')
      .selectAll()
      .where('id', '=', sub.order_id)
      .executeTakeFirstOrThrow();
    expect(order).toMatchObject({ amount_cents: 4990, coupon_id: null });
    expect(JSON.parse(order.items).map((item: any) => item.kind)).toEqual(['product']);
  });
});
