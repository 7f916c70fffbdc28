import { beforeAll, describe, expect, it } from 'vitest';
import { fromBool } from '../../src/platform/db/schema.js';
import { newUuid } from '../../src/platform/values/ids.js';
import { nowIso } from '../../src/platform/values/time.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { countRows, eventsFor } from '../pix/pix-test-helpers.js';

const SALE_KEYS = [
  'amount',
  'coupon',
  'created_at',
  'customer',
  'delivery_email',
  'id',
  'items',
  'livemode',
  'object',
  'payment_method',
  'pix_charge_id',
  'product_id',
  'recovered',
  'refund',
  'refunded_at',
  'status',
  'tracking',
  'subscription_id',
  'cycle',
  'card_payment_id',
  'installments',
].sort();

/** A live sale written straight to the database (no live provider can make one through the API). */
async function insertLiveSale(api: TestApi, storeId: string): Promise<string> {
  const id = newUuid();
  await api.db
    .insertInto('sales')
    .values({
      id,
      store_id: storeId,
      livemode: fromBool(true),
      status: 'approved',
      amount_cents: 500,
      payment_method: 'pix',
      pix_charge_id: null,
      pix_end_to_end_id: 'E00000000202601011200abcdefghijk',
      product_id: null,
      customer: null,
      created_at: nowIso(),
      refunded_at: null,
    })
    .execute();
  return id;
}

describeEachDatabase('sales', (api) => {
  let key: string;
  let storeId: string;

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
  });

  async function paidSale(amount = 49.9) {
    const charge = (
      await api
        .as(key)
        .post('/payments/pix', { amount, customer: { email: 'bia@example.com', document: '11222333000181' } })
    ).body;
    const paid = await api.as(key).post(`/payments/pix/${charge.id}/simulate_payment`);
    const sale = await api.db
      .selectFrom('sales')
      .selectAll()
      .where('pix_charge_id', '=', charge.id)
      .executeTakeFirstOrThrow();
    return { charge, paid, saleId: sale.id };
  }

  describe('simulate_payment', () => {
    it('marks the charge paid, creates its sale, and records pix.paid then sale.approved in one go', async () => {
      const { charge, paid, saleId } = await paidSale();
      expect(paid.status).toBe(200);
      expect(paid.body).toMatchObject({ id: charge.id, status: 'paid', amount: 49.9 });
      expect(Date.parse(paid.body.paid_at)).toBeGreaterThanOrEqual(Date.parse(charge.created_at));
      expect((await api.as(key).get(`/payments/pix/${charge.id}`)).body).toEqual(paid.body);

      const sale = await api.as(key).get(`/sales/${saleId}`);
      expect(sale.status).toBe(200);
      expect(Object.keys(sale.body).sort()).toEqual(SALE_KEYS);
      expect(sale.body).toMatchObject({
        object: 'sale',
        status: 'approved',
        amount: 49.9,
        payment_method: 'pix',
        pix_charge_id: charge.id,
        product_id: null,
        customer: { email: 'bia@example.com', document: '11222333000181' },
        livemode: false,
        refunded_at: null,
        // The customer has an e-mail, but this service has no SMTP_URL.
        delivery_email: { status: 'skipped', attempts: 0, sent_at: null, last_error: null },
      });

      const paidEvents = await eventsFor(api, storeId, charge.id, 'pix.paid');
      const approved = await eventsFor(api, storeId, saleId, 'sale.approved');
      expect(paidEvents).toHaveLength(1);
      expect(approved).toHaveLength(1);
      expect(paidEvents[0]!.payload.data.object).toEqual(paid.body);
      expect(approved[0]!.payload.data.object).toEqual(sale.body);
      expect(approved[0]!.row.created_at > paidEvents[0]!.row.created_at).toBe(true);
    });

    it('paying a paid charge is 400 and makes no second sale or event', async () => {
      const { charge } = await paidSale();
      const before = await countRows(api, storeId);
      expectError(
        await api.as(key).post(`/payments/pix/${charge.id}/simulate_payment`),
        400,
        'invalid_request',
      );
      expect(await countRows(api, storeId)).toEqual(before);
    });

    it('concurrent payments of one charge make exactly one sale', async () => {
      const charge = (await api.as(key).post('/payments/pix', { amount: 3 })).body;
      const results = await Promise.all(
        Array.from({ length: 5 }, () => api.as(key).post(`/payments/pix/${charge.id}/simulate_payment`)),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
      expect(
        await api.db.selectFrom('sales').select('id').where('pix_charge_id', '=', charge.id).execute(),
      ).toHaveLength(1);
      expect(await eventsFor(api, storeId, charge.id, 'pix.paid')).toHaveLength(1);
    });

    it('a malformed or unknown charge id is 404', async () => {
      expectError(await api.as(key).post('/payments/pix/nope/simulate_payment'), 404, 'not_found');
      expectError(
        await api.as(key).post('/payments/pix/pix_000000000000000000000000/simulate_payment'),
        404,
        'not_found',
      );
    });
  });

  describe('list and retrieve', () => {
    it('lists sales newest first with cursor pagination', async () => {
      const { key: listKey, storeId: listStore } = await api.createStore();
      const chargeIds: string[] = [];
      for (let i = 0; i < 3; i++) {
        const charge = (await api.as(listKey).post('/payments/pix', { amount: i + 1 })).body;
        await api.as(listKey).post(`/payments/pix/${charge.id}/simulate_payment`);
        chargeIds.push(charge.id);
      }
      const first = await api.as(listKey).get('/sales?limit=2');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ object: 'list', has_more: true });
      const second = await api.as(listKey).get(`/sales?limit=2&starting_after=${first.body.next_cursor}`);
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
      const all = [...first.body.data, ...second.body.data].map(
        (s: { pix_charge_id: string }) => s.pix_charge_id,
      );
      expect(new Set(all)).toEqual(new Set(chargeIds));
      expect(all).toEqual(await api.newestFirst('sales', listStore, 'pix_charge_id'));
    });

    it('rejects bad list parameters; a malformed or unknown sale id is 404', async () => {
      expectError(await api.as(key).get('/sales?limit=101'), 400, 'invalid_request', 'limit');
      expectError(await api.as(key).get('/sales?status=approved'), 400, 'invalid_request', 'status');
      expectError(
        await api.as(key).get('/sales?starting_after=x.y'),
        400,
        'invalid_request',
        'starting_after',
      );
      expectError(await api.as(key).get('/sales/not-a-uuid'), 404, 'not_found');
      expectError(await api.as(key).get(`/sales/${newUuid()}`), 404, 'not_found');
      expectError(await api.as(key).post(`/sales/${newUuid()}/refund`), 404, 'not_found');
    });
  });

  describe('refund', () => {
    it('refunds once (sale.refunded, refunded_at); a second refund is 400 and writes nothing', async () => {
      const { saleId, charge } = await paidSale(10);
      const refunded = await api.as(key).post(`/sales/${saleId}/refund`);
      expect(refunded.status).toBe(200);
      expect(refunded.body).toMatchObject({ id: saleId, status: 'refunded' });
      expect(Date.parse(refunded.body.refunded_at)).toBeGreaterThanOrEqual(
        Date.parse(refunded.body.created_at),
      );
      expect((await api.as(key).get(`/sales/${saleId}`)).body).toEqual(refunded.body);
      const events = await eventsFor(api, storeId, saleId, 'sale.refunded');
      expect(events).toHaveLength(1);
      expect(events[0]!.payload.data.object).toEqual(refunded.body);

      const before = await countRows(api, storeId);
      expectError(await api.as(key).post(`/sales/${saleId}/refund`), 400, 'invalid_request');
      expect(await countRows(api, storeId)).toEqual(before);
      // The charge stays paid: the refund is a fact of the sale.
      expect((await api.as(key).get(`/payments/pix/${charge.id}`)).body.status).toBe('paid');
    });

    it('concurrent refunds of one sale record one sale.refunded', async () => {
      const { saleId } = await paidSale(11);
      const results = await Promise.all(
        Array.from({ length: 5 }, () => api.as(key).post(`/sales/${saleId}/refund`)),
      );
      expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400]);
      expect(await eventsFor(api, storeId, saleId, 'sale.refunded')).toHaveLength(1);
    });
  });

  describe('scopes, modes and stores', () => {
    it('sales:read to read, sales:write to refund', async () => {
      const { saleId } = await paidSale(12);
      const reader = await api.createKey(storeId, ['sales:read']);
      const writer = await api.createKey(storeId, ['sales:write']);
      expectError(await api.as(writer).get('/sales'), 403, 'insufficient_scope');
      expectError(await api.as(writer).get(`/sales/${saleId}`), 403, 'insufficient_scope');
      expectError(await api.as(reader).post(`/sales/${saleId}/refund`), 403, 'insufficient_scope');
      expect((await api.as(reader).get(`/sales/${saleId}`)).status).toBe(200);
      expect((await api.as(writer).post(`/sales/${saleId}/refund`)).status).toBe(200);
    });

    it('test and live sales never meet; a live refund without a configured provider is 400 provider_not_configured', async () => {
      const { saleId } = await paidSale(13);
      const liveKey = await api.createKey(storeId, undefined, 'live');
      const liveSaleId = await insertLiveSale(api, storeId);

      expectError(await api.as(liveKey).get(`/sales/${saleId}`), 404, 'not_found');
      expectError(await api.as(liveKey).post(`/sales/${saleId}/refund`), 404, 'not_found');
      expect((await api.as(liveKey).get('/sales')).body.data.map((s: { id: string }) => s.id)).toEqual([
        liveSaleId,
      ]);
      expectError(await api.as(key).get(`/sales/${liveSaleId}`), 404, 'not_found');
      const testList = (await api.as(key).get('/sales?limit=100')).body.data.map((s: { id: string }) => s.id);
      expect(testList).not.toContain(liveSaleId);

      const before = await countRows(api, storeId);
      expectError(await api.as(liveKey).post(`/sales/${liveSaleId}/refund`), 400, 'provider_not_configured');
      expect(await countRows(api, storeId)).toEqual(before);
      expect((await api.as(liveKey).get(`/sales/${liveSaleId}`)).body.status).toBe('approved');

      const page = await api.as(key).get('/sales?limit=1');
      expectError(
        await api.as(liveKey).get(`/sales?starting_after=${page.body.next_cursor}`),
        400,
        'invalid_request',
      );
    });

    it("another store's sale is 404 and absent from lists", async () => {
      const { saleId } = await paidSale(14);
      const other = await api.createStore();
      expectError(await api.as(other.key).get(`/sales/${saleId}`), 404, 'not_found');
      expectError(await api.as(other.key).post(`/sales/${saleId}/refund`), 404, 'not_found');
      expect((await api.as(other.key).get('/sales')).body.data).toEqual([]);
      expect((await api.as(key).get(`/sales/${saleId}`)).body.status).toBe('approved');
    });
  });
});
