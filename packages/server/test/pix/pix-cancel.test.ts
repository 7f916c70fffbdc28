import { beforeAll, expect, it } from 'vitest';
import { Storefront, ValidationError } from '../../../client/src/index.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { eventsFor } from './pix-test-helpers.js';

describeEachDatabase('pix charge cancellation (test mode) and the canceled status', (api) => {
  let key: string;
  let storeId: string;
  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
  });

  const create = async (body: Record<string, unknown> = {}) =>
    (await api.as(key).post('/payments/pix', { amount: 10, ...body })).body;

  it('cancels a pending charge: 200, status canceled, canceled_at, one pix.canceled event', async () => {
    const charge = await create({ customer: { name: 'Ana Souza', email: 'ana@example.com' } });
    expect(charge.canceled_at).toBeNull();
    const res = await api.as(key).post(`/payments/pix/${charge.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: charge.id, status: 'canceled', customer: { name: 'Ana Souza' } });
    expect(res.body.canceled_at >= charge.created_at).toBe(true);
    expect((await api.as(key).get(`/payments/pix/${charge.id}`)).body).toEqual(res.body);
    const events = await eventsFor(api, storeId, charge.id, 'pix.canceled');
    expect(events).toHaveLength(1);
    expect(events[0]!.payload.data.object).toMatchObject({
      status: 'canceled',
      canceled_at: res.body.canceled_at,
    });
  });

  it('refuses to cancel a canceled, paid or expired charge (400) and to pay a canceled one', async () => {
    const canceled = await create();
    await api.as(key).post(`/payments/pix/${canceled.id}/cancel`);
    expect(
      expectError(await api.as(key).post(`/payments/pix/${canceled.id}/cancel`), 400, 'invalid_request')
        .message,
    ).toMatch(/already canceled/);
    expect(
      expectError(
        await api.as(key).post(`/payments/pix/${canceled.id}/simulate_payment`),
        400,
        'invalid_request',
      ).message,
    ).toMatch(/canceled/);

    const paid = await create();
    await api.as(key).post(`/payments/pix/${paid.id}/simulate_payment`);
    expect(
      expectError(await api.as(key).post(`/payments/pix/${paid.id}/cancel`), 400, 'invalid_request').message,
    ).toMatch(/already paid/);

    const expired = await create();
    await api.db
      .updateTable('pix_charges')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', expired.id)
      .execute();
    expect(
      expectError(await api.as(key).post(`/payments/pix/${expired.id}/cancel`), 400, 'invalid_request')
        .message,
    ).toMatch(/expired/);
    expect(await eventsFor(api, storeId, expired.id, 'pix.canceled')).toHaveLength(0);
  });

  it('checks scope, existence and mode: 403 without pix:write, 404 for unknown, foreign or other-mode ids', async () => {
    const charge = await create();
    const reader = await api.createKey(storeId, ['pix:read'], 'test');
    expectError(await api.as(reader).post(`/payments/pix/${charge.id}/cancel`), 403, 'insufficient_scope');
    expectError(
      await api.as(key).post('/payments/pix/pix_000000000000000000000000/cancel'),
      404,
      'not_found',
    );
    expectError(await api.as(key).post('/payments/pix/nope/cancel'), 404, 'not_found');
    const other = await api.createStore();
    expectError(await api.as(other.key).post(`/payments/pix/${charge.id}/cancel`), 404, 'not_found');
    const live = await api.createKey(storeId, undefined, 'live');
    expectError(await api.as(live).post(`/payments/pix/${charge.id}/cancel`), 404, 'not_found');
    expect((await api.as(key).get(`/payments/pix/${charge.id}`)).body.status).toBe('pending');
  });

  it('the status filter takes canceled, and the other filters leave canceled charges out', async () => {
    const { key: own } = await api.createStore();
    const pending = (await api.as(own).post('/payments/pix', { amount: 1 })).body;
    const canceled = (await api.as(own).post('/payments/pix', { amount: 2 })).body;
    await api.as(own).post(`/payments/pix/${canceled.id}/cancel`);
    const ids = async (status: string) =>
      (await api.as(own).get(`/payments/pix?status=${status}`)).body.data.map((c: { id: string }) => c.id);
    expect(await ids('canceled')).toEqual([canceled.id]);
    expect(await ids('pending')).toEqual([pending.id]);
    expect(await ids('paid')).toEqual([]);
    expect(await ids('expired')).toEqual([]);
    expectError(await api.as(own).get('/payments/pix?status=cancelled'), 400, 'invalid_request', 'status');
  });

  it('customer.name: 1 and 200 characters pass, and the name reaches the sale', async () => {
    const one = await create({ customer: { name: 'A' } });
    expect(one.customer).toEqual({ name: 'A' });
    const long = await create({ customer: { name: 'n'.repeat(200), document: '52998224725' } });
    await api.as(key).post(`/payments/pix/${long.id}/simulate_payment`);
    const sales = (await api.as(key).get('/sales?limit=100')).body.data;
    const sale = sales.find((s: { pix_charge_id: string }) => s.pix_charge_id === long.id);
    expect(sale.customer).toEqual({ name: 'n'.repeat(200), document: '52998224725' });
    expect(sale.refund).toBeNull();
  });

  it('a test refund is immediate, with refund.status succeeded', async () => {
    const charge = await create();
    await api.as(key).post(`/payments/pix/${charge.id}/simulate_payment`);
    const sale = (await api.as(key).get('/sales?limit=100')).body.data.find(
      (s: { pix_charge_id: string }) => s.pix_charge_id === charge.id,
    );
    const refunded = await api.as(key).post(`/sales/${sale.id}/refund`);
    expect(refunded.body).toMatchObject({
      status: 'refunded',
      refund: { status: 'succeeded', failure_reason: null },
    });
    expect(refunded.body.refund.requested_at <= refunded.body.refunded_at).toBe(true);
  });

  it('the official client cancels through pix.cancel(id), and a second cancel is a ValidationError', async () => {
    const client = new Storefront({ apiKey: key, baseUrl: api.baseUrl, maxRetries: 0 });
    const charge = await client.pix.create({ amount: 3.5, customer: { name: 'Cliente' } });
    const canceled = await client.pix.cancel(charge.id);
    expect(canceled).toMatchObject({ id: charge.id, status: 'canceled' });
    expect(canceled.canceled_at).not.toBeNull();
    await expect(client.pix.cancel(charge.id)).rejects.toBeInstanceOf(ValidationError);
    const page = await client.pix.list({ status: 'canceled' });
    expect(page.data.map((c) => c.id)).toContain(charge.id);
  });
});
