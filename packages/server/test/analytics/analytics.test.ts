import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/channels/server/app.js';
import { COUNTERS } from '../../src/domain/analytics/daily-totals.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { chargeOfOrder, createShop, pageRequest, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';

/** Short, so a test sees its views written within a few polls. */
const FLUSH_MS = 50;

/**
 * The local date in São Paulo, computed apart from the service: Brazil has kept UTC−03:00 all year
 * since 2019, so the date is that of the instant three hours earlier in UTC.
 */
function saoPauloDate(instant: string | number): string {
  return new Date(new Date(instant).getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
}

/**
 * The service runs in this process: the tests move its clock (Date only; timers stay real, so the
 * flush keeps its pace) and everything it writes carries that time, as if the day had come.
 */
function at(instant: string): void {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(new Date(instant));
}

afterEach(() => {
  vi.useRealTimers();
});

describeEachDatabase(
  'analytics',
  (api) => {
    const summary = (key: string, query: string) => api.as(key).get(`/analytics/summary?${query}`);

    /** A day's figures from the summary of that one day. */
    async function day(key: string, date: string, product?: string) {
      const res = await summary(key, `from=${date}&to=${date}${product ? `&product_id=${product}` : ''}`);
      expect(res.status).toBe(200);
      const { date: _date, ...figures } = res.body.days[0];
      expect(figures).toEqual({
        page_views: res.body.page_views,
        orders: res.body.orders,
        paid_orders: res.body.paid_orders,
        sales: res.body.sales,
        gross_amount: res.body.gross_amount,
        refunded_amount: res.body.refunded_amount,
        net_amount: res.body.net_amount,
      });
      return figures;
    }

    const ZERO = {
      page_views: 0,
      orders: 0,
      paid_orders: 0,
      sales: 0,
      gross_amount: 0,
      refunded_amount: 0,
      net_amount: 0,
    };

    async function payOrder(token: string) {
      expect((await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {})).status).toBe(200);
      const sale = await api.db
        .selectFrom('sales')
        .selectAll()
        .where('pix_charge_id', '=', await chargeOfOrder(api, token))
        .executeTakeFirstOrThrow();
      return sale;
    }

    /** A shop whose pages sell in live mode (no live PSP set up), and a live key to read its figures. */
    async function liveShop() {
      const shop = await createShop(api);
      const liveKey = await api.createKey(shop.storeId, ['sales:read'], 'live');
      await api.db
        .updateTable('stores')
        .set({ checkout_mode: 'live' })
        .where('id', '=', shop.storeId)
        .execute();
      return { shop, liveKey };
    }

    /** The product's rows of the day: one per slot written (on SQLite, only slot 0). */
    async function viewsRows(shop: Shop, date: string, table: 'analytics_daily' = 'analytics_daily') {
      return api.db
        .selectFrom(table)
        .selectAll()
        .where('store_id', '=', shop.storeId)
        .where('product_id', '=', shop.product.id)
        .where('day', '=', date)
        .execute();
    }

    describe('page views', () => {
      it('counts each 200 GET of a product page; HEAD, a 404 and the order page are not counted', async () => {
        const shop = await createShop(api);
        const today = saoPauloDate(Date.now());
        for (let i = 0; i < 3; i++) expect((await pageRequest(api, 'GET', shop.pagePath)).status).toBe(200);
        const head = await fetch(`${api.baseUrl}${shop.pagePath}`, { method: 'HEAD' });
        expect(head.status).toBe(200);
        expect((await pageRequest(api, 'GET', `/p/${shop.handle}/nao-existe`)).status).toBe(404);
        const { token } = await placeOrder(api, shop);
        expect((await pageRequest(api, 'GET', `/p/o/${token}`)).status).toBe(200);

        await eventually(async () => (await day(shop.key, today)).page_views === 3);
        // Several flushes later, still 3: nothing else was counted.
        await new Promise((resolve) => setTimeout(resolve, FLUSH_MS * 6));
        expect(await day(shop.key, today)).toEqual({ ...ZERO, page_views: 3, orders: 1 });
        // What is stored: the count per store, product and day; nothing about who looked.
        const rows = await viewsRows(shop, today);
        expect(rows.map((row) => row.livemode)).toEqual(rows.map(() => 0));
        expect(rows.reduce((sum, row) => sum + Number(row.page_views), 0)).toBe(3);
        expect(Object.keys(rows[0]!).sort()).toEqual(
          ['store_id', 'livemode', 'day', 'product_id', 'slot', ...COUNTERS].sort(),
        );
      });

      it('processes on one database add up their views; a graceful close writes what is left', async () => {
        const shop = await createShop(api);
        const today = saoPauloDate(Date.now());
        // A second HTTP process whose timer would not write for a minute: only its close can.
        const other = await buildApp({
          config: { ...api.config, pageViewFlushMs: 60_000 },
          db: api.db,
          logger: false,
        });
        await other.listen({ port: 0, host: '127.0.0.1' });
        const address = other.server.address();
        const otherUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
        try {
          for (let i = 0; i < 2; i++) expect((await fetch(`${otherUrl}${shop.pagePath}`)).status).toBe(200);
          expect((await pageRequest(api, 'GET', shop.pagePath)).status).toBe(200);
          await eventually(async () => (await day(shop.key, today)).page_views === 1);
        } finally {
          await other.close();
        }
        expect((await day(shop.key, today)).page_views).toBe(3);
      });

      it('views a failed write could not store are kept and written by a later flush', async () => {
        const shop = await createShop(api);
        const today = saoPauloDate(Date.now());
        // The totals table out of reach: every flush fails until it is back.
        await api.db.schema.alterTable('analytics_daily').renameTo('analytics_daily_away').execute();
        try {
          for (let i = 0; i < 2; i++) expect((await pageRequest(api, 'GET', shop.pagePath)).status).toBe(200);
          await new Promise((resolve) => setTimeout(resolve, FLUSH_MS * 6));
          // Checked while the table is still away: once it is back, the next flush may write at once.
          const away = 'analytics_daily_away' as 'analytics_daily';
          expect(await viewsRows(shop, today, away)).toEqual([]);
        } finally {
          await api.db.schema.alterTable('analytics_daily_away').renameTo('analytics_daily').execute();
        }
        await eventually(async () => (await day(shop.key, today)).page_views === 2);
      });

      it('a page of a store in live checkout mode counts in the live figures only', async () => {
        const { shop, liveKey } = await liveShop();
        const today = saoPauloDate(Date.now());
        expect((await pageRequest(api, 'GET', shop.pagePath)).status).toBe(200);
        await eventually(async () => (await day(liveKey, today)).page_views === 1);
        expect(await day(shop.key, today)).toEqual(ZERO);
      });
    });

    describe('daily totals', () => {
      it('orders, paid orders, sales, refunds and net per São Paulo day, across midnight', async () => {
        const shop = await createShop(api);
        const { key } = shop;

        // 23:30 in São Paulo on 9 March (02:30 UTC on the 10th): a view and an order.
        at('2026-03-10T02:30:00.000Z');
        expect((await pageRequest(api, 'GET', shop.pagePath)).status).toBe(200);
        const first = (await placeOrder(api, shop)).token!;
        // 23:50: paid the same local day.
        at('2026-03-10T02:50:00.000Z');
        const firstSale = await payOrder(first);
        // 23:55: a second order, with the bump (109.90)…
        at('2026-03-10T02:55:00.000Z');
        const second = (await placeOrder(api, shop, { bump: true })).token!;
        // …paid at 00:05 on the 10th.
        at('2026-03-10T03:05:00.000Z');
        const secondSale = await payOrder(second);
        // A charge made through the API, without a product: a sale, not a paid order.
        at('2026-03-10T03:10:00.000Z');
        const charge = (await api.as(key).post('/payments/pix', { amount: 20 })).body;
        expect((await api.as(key).post(`/payments/pix/${charge.id}/simulate_payment`)).status).toBe(200);
        // The first sale refunded on the 11th at noon.
        at('2026-03-11T15:00:00.000Z');
        const refund = await api.as(key).post(`/sales/${firstSale.id}/refund`);
        expect(refund.status).toBe(200);
        vi.useRealTimers();

        // The days follow the rows' own times in São Paulo.
        expect(saoPauloDate(firstSale.created_at)).toBe('2026-03-09');
        expect(saoPauloDate(secondSale.created_at)).toBe('2026-03-10');
        expect(saoPauloDate(refund.body.refunded_at)).toBe('2026-03-11');

        await eventually(async () => (await day(key, '2026-03-09')).page_views === 1);
        const res = await summary(key, 'from=2026-03-08&to=2026-03-12');
        expect(res.status).toBe(200);
        expect(res.body.days).toEqual([
          { date: '2026-03-08', ...ZERO },
          {
            date: '2026-03-09',
            page_views: 1,
            orders: 2,
            paid_orders: 1,
            sales: 1,
            gross_amount: 100,
            refunded_amount: 0,
            net_amount: 100,
          },
          {
            date: '2026-03-10',
            ...ZERO,
            paid_orders: 1,
            sales: 2,
            gross_amount: 129.9,
            net_amount: 129.9,
          },
          // A refund changes neither sales nor gross, on any day.
          { date: '2026-03-11', ...ZERO, refunded_amount: 100, net_amount: -100 },
          { date: '2026-03-12', ...ZERO },
        ]);
        expect(res.body).toMatchObject({
          object: 'analytics_summary',
          from: '2026-03-08',
          to: '2026-03-12',
          page_views: 1,
          orders: 2,
          paid_orders: 2,
          sales: 3,
          gross_amount: 229.9,
          refunded_amount: 100,
          net_amount: 129.9,
          // paid orders per page view
          conversion_rate: 2,
        });

        // The product filter leaves out the API charge without a product.
        expect(await day(key, '2026-03-10', shop.product.id)).toEqual({
          ...ZERO,
          paid_orders: 1,
          sales: 1,
          gross_amount: 109.9,
          net_amount: 109.9,
        });
      });

      it('a free order is an order, a paid order and a sale of 0 at once', async () => {
        const shop = await createShop(api);
        await api.as(shop.key).post('/coupons', { code: 'TUDO', percent_off: 100 });
        const today = saoPauloDate(Date.now());
        const { res } = await placeOrder(api, shop, { coupon: 'TUDO' });
        expect(res.status).toBe(201);
        expect(await day(shop.key, today)).toEqual({ ...ZERO, orders: 1, paid_orders: 1, sales: 1 });
      });

      it('an order whose Pix could not be made is taken back from the count', async () => {
        // Live checkout without a live PSP: the page refuses the order and deletes it.
        const { shop, liveKey } = await liveShop();
        const today = saoPauloDate(Date.now());
        expect((await placeOrder(api, shop)).res.status).toBe(503);
        expect(
          await api.db.selectFrom('orders').select('id').where('store_id', '=', shop.storeId).execute(),
        ).toEqual([]);
        expect((await day(liveKey, today)).orders).toBe(0);
      });

      it('counts in the store’s own time zone, and in São Paulo’s when the zone is unknown', async () => {
        async function saleAt(timezone: string, instant: string) {
          const shop = await createShop(api);
          await api.db
            .updateTable('stores')
            .set({ timezone } as never)
            .where('id', '=', shop.storeId)
            .execute();
          at(instant);
          const charge = (await api.as(shop.key).post('/payments/pix', { amount: 5 })).body;
          expect((await api.as(shop.key).post(`/payments/pix/${charge.id}/simulate_payment`)).status).toBe(
            200,
          );
          vi.useRealTimers();
          return shop;
        }
        // 16:30 UTC on 10 March is 01:30 on the 11th in Tokyo (13:30 on the 10th in São Paulo).
        const tokyo = await saleAt('Asia/Tokyo', '2026-03-10T16:30:00.000Z');
        expect((await day(tokyo.key, '2026-03-11')).sales).toBe(1);
        expect((await day(tokyo.key, '2026-03-10')).sales).toBe(0);
        // A zone this Node does not know never fails the payment: the day is São Paulo's.
        const unknown = await saleAt('America/Atlantida', '2026-03-10T02:30:00.000Z');
        expect((await day(unknown.key, '2026-03-09')).sales).toBe(1);
      });
    });

    describe('GET /analytics/summary', () => {
      let shop: Shop;
      beforeAll(async () => {
        shop = await createShop(api);
      });

      it('covers up to 366 days, every day present', async () => {
        const res = await summary(shop.key, 'from=2024-01-01&to=2024-12-31');
        expect(res.status).toBe(200);
        expect(res.body.days).toHaveLength(366);
        expect(res.body.days[59]).toEqual({ date: '2024-02-29', ...ZERO });
        expect(res.body).toMatchObject({ ...ZERO, conversion_rate: null });
        const one = await summary(shop.key, 'from=2026-01-01&to=2026-01-01');
        expect(one.body.days).toEqual([{ date: '2026-01-01', ...ZERO }]);
      });

      it('refuses 367 days, a backwards range and malformed dates, naming the parameter', async () => {
        expectError(await summary(shop.key, 'from=2024-01-01&to=2025-01-01'), 400, 'invalid_request', 'to');
        expectError(await summary(shop.key, 'from=2026-03-02&to=2026-03-01'), 400, 'invalid_request', 'to');
        for (const bad of ['2026-13-01', '2026-02-30', '2026-1-5', 'ontem', '']) {
          const error = expectError(
            await summary(shop.key, `from=${bad}&to=2026-03-01`),
            400,
            'invalid_request',
            'from',
          );
          if (bad !== '') expect(error.message).toContain('YYYY-MM-DD');
        }
        expectError(await summary(shop.key, 'from=2026-03-01'), 400, 'invalid_request', 'to');
        expectError(
          await summary(shop.key, 'from=2026-03-01&to=2026-03-01&product_id=nope'),
          400,
          'invalid_request',
          'product_id',
        );
        expectError(await summary(shop.key, 'from=2026-03-01&to=2026-03-01&top=1'), 400, 'invalid_request');
      });

      it('needs sales:read', async () => {
        const key = await api.createKey(shop.storeId, ['products:read']);
        expectError(await summary(key, 'from=2026-03-01&to=2026-03-01'), 403, 'insufficient_scope');
      });

      it('shows a store only its own figures, whatever product it names', async () => {
        const other = await createShop(api, {}, 'Outra Loja');
        const today = saoPauloDate(Date.now());
        expect((await pageRequest(api, 'GET', other.pagePath)).status).toBe(200);
        await placeOrder(api, other);
        await eventually(async () => (await day(other.key, today)).page_views === 1);
        expect(await day(shop.key, today)).toEqual(ZERO);
        expect(await day(shop.key, today, other.product.id)).toEqual(ZERO);
        expect(await day(other.key, today, other.product.id)).toEqual({ ...ZERO, page_views: 1, orders: 1 });
      });
    });
  },
  { config: { pageViewFlushMs: FLUSH_MS } },
);
