import { afterEach, expect, it, vi } from 'vitest';
import { formatBrl, toCents } from '../../src/platform/values/money.js';
import { formatCount, formatPercent } from '../../src/channels/dashboard/views/format.js';
import { describeEachDatabase } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import { chargeOfOrder, createShop, pageRequest, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { eventually } from '../webhooks/delivery-harness.js';

/** Short, so the views are written within a few polls. */
const FLUSH_MS = 50;

/** Moves the service's clock (Date only; timers stay real so the flush keeps its pace). */
function at(instant: string): void {
  vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
  vi.setSystemTime(new Date(instant));
}

afterEach(() => {
  vi.useRealTimers();
});

/** The figure after its label on Início, with plain spaces. */
const figure = (html: string, label: string) =>
  new RegExp(`<dt>${label}</dt><dd>([^<]*)</dd>`).exec(html)?.[1]?.replace(/\u00a0/g, ' ');

describeEachDatabase(
  'dashboard Início from the analytics summary',
  (api) => {
    async function view(shop: Shop, times: number) {
      for (let i = 0; i < times; i++) expect((await pageRequest(api, 'GET', shop.pagePath)).status).toBe(200);
    }

    async function paidOrder(shop: Shop) {
      const { token } = await placeOrder(api, shop);
      expect((await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {})).status).toBe(200);
      return chargeOfOrder(api, token!);
    }

    /** Início's four figures and the summary's of the same days, side by side. */
    async function compare(shop: Shop, session: Awaited<ReturnType<typeof dashboardLogin>>, periodo: string) {
      const page = await dashboardRequest(api.baseUrl, session, 'GET', `/dashboard?periodo=${periodo}`);
      expect(page.status).toBe(200);
      const days = [...page.text.matchAll(/<th scope="row">(\d\d)\/(\d\d)<\/th>/g)];
      expect(days.length).toBe(periodo === 'hoje' ? 1 : Number(periodo));
      // The table shows day/month: a month after this one is last year's.
      const now = new Date();
      const date = (m: RegExpMatchArray) =>
        `${now.getUTCFullYear() - (Number(m[2]) > now.getUTCMonth() + 1 ? 1 : 0)}-${m[2]}-${m[1]}`;
      const summary = await api
        .as(shop.key)
        .get(`/analytics/summary?from=${date(days[0]!)}&to=${date(days[days.length - 1]!)}`);
      expect(summary.status).toBe(200);
      const shown = {
        revenue: figure(page.text, 'Receita líquida'),
        sales: figure(page.text, 'Vendas'),
        views: figure(page.text, 'Visualizações'),
        conversion: figure(page.text, 'Conversão'),
      };
      expect(shown).toEqual({
        revenue: formatBrl(toCents(summary.body.net_amount)),
        sales: formatCount(summary.body.sales),
        views: formatCount(summary.body.page_views),
        conversion: summary.body.conversion_rate === null ? '—' : formatPercent(summary.body.conversion_rate),
      });
      return { shown, summary: summary.body, from: date(days[0]!), to: date(days[days.length - 1]!) };
    }

    it('page views and conversion are the summary’s, on São Paulo days across midnight', async () => {
      const shop = await createShop(api);
      const user = await addDashboardUser(api, shop.storeId, 'viewer');

      // 23:30 on 9 March in São Paulo (02:30 UTC on the 10th): two views, one order paid.
      at('2026-03-10T02:30:00.000Z');
      await view(shop, 2);
      await paidOrder(shop);
      // 00:10 on the 10th: three views, one order paid, one left unpaid.
      at('2026-03-10T03:10:00.000Z');
      await view(shop, 3);
      await paidOrder(shop);
      expect((await placeOrder(api, shop)).res.status).toBe(201);
      await eventually(async () => {
        const res = await api.as(shop.key).get('/analytics/summary?from=2026-03-09&to=2026-03-10');
        return res.body.page_views === 5;
      });

      // 02:59 UTC on the 10th is still the 9th in São Paulo: "hoje" is the 9th.
      at('2026-03-10T02:59:00.000Z');
      const session = await dashboardLogin(api.baseUrl, user);
      const before = await compare(shop, session, 'hoje');
      expect(before.from).toBe('2026-03-09');
      expect(before.shown).toEqual({ revenue: 'R$ 100,00', sales: '1', views: '2', conversion: '50%' });

      // At 11:00 on the 10th (within the session's 12 idle hours) "hoje" is the 10th; seven days
      // reach back to the 4th and hold both.
      at('2026-03-10T14:00:00.000Z');
      const today = await compare(shop, session, 'hoje');
      expect(today.from).toBe('2026-03-10');
      expect(today.shown).toEqual({ revenue: 'R$ 100,00', sales: '1', views: '3', conversion: '33,3%' });
      const week = await compare(shop, session, '7');
      expect([week.from, week.to]).toEqual(['2026-03-04', '2026-03-10']);
      expect(week.shown).toEqual({ revenue: 'R$ 200,00', sales: '2', views: '5', conversion: '40%' });
      await compare(shop, session, '30');
      await compare(shop, session, '90');
    });

    it('a refund lowers the net revenue of its own day, as the summary does', async () => {
      const shop = await createShop(api);
      const user = await addDashboardUser(api, shop.storeId, 'viewer');
      at('2026-03-10T12:00:00.000Z');
      const charge = await paidOrder(shop);
      const sale = await api.db
        .selectFrom('sales')
        .select('id')
        .where('pix_charge_id', '=', charge)
        .executeTakeFirstOrThrow();
      at('2026-03-11T12:00:00.000Z');
      expect((await api.as(shop.key).post(`/sales/${sale.id}/refund`)).status).toBe(200);
      const session = await dashboardLogin(api.baseUrl, user);
      const today = await compare(shop, session, 'hoje');
      // The sale counts on its own day; the refund takes its amount from the refund's day.
      expect(today.shown).toMatchObject({ revenue: '-R$ 100,00', sales: '0' });
      const week = await compare(shop, session, '7');
      expect(week.shown).toMatchObject({ revenue: 'R$ 0,00', sales: '1' });
    });

    it('a store in another time zone sees its own "hoje"', async () => {
      const shop = await createShop(api);
      expect((await api.as(shop.key).patch('/store', { timezone: 'UTC' })).status).toBe(200);
      const user = await addDashboardUser(api, shop.storeId, 'viewer');
      // 02:30 UTC on the 10th: the 10th in UTC (the 9th in São Paulo).
      at('2026-03-10T02:30:00.000Z');
      await view(shop, 1);
      await paidOrder(shop);
      await eventually(async () => {
        const res = await api.as(shop.key).get('/analytics/summary?from=2026-03-10&to=2026-03-10');
        return res.body.page_views === 1;
      });
      at('2026-03-10T02:45:00.000Z');
      const session = await dashboardLogin(api.baseUrl, user);
      const today = await compare(shop, session, 'hoje');
      expect(today.from).toBe('2026-03-10');
      expect(today.shown).toEqual({ revenue: 'R$ 100,00', sales: '1', views: '1', conversion: '100%' });
      const page = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard?periodo=hoje');
      expect(page.text).toContain('Dias no fuso da loja (UTC)');
      // The latest sales are dated in the store's zone too: 02:30 on the 10th.
      expect(page.text).toContain('10/03/2026, 02:30');
    });
  },
  { config: { pageViewFlushMs: FLUSH_MS } },
);
