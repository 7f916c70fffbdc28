import { afterEach, beforeAll, expect, it, vi } from 'vitest';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';

const DAY = 86_400_000;

afterEach(() => {
  vi.useRealTimers();
});

/**
 * A test sale paid through the API (a simulated Pix), at `at` when given: the service's clock (Date
 * only) is moved there, so the sale and the day it counts on in the daily totals are that instant's.
 */
async function sale(api: TestApi, key: string, amount: number, name: string, at?: Date): Promise<string> {
  if (at) {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(at);
  }
  const charge = await api
    .as(key)
    .post('/payments/pix', { amount, customer: { name, email: 'c@example.com' } });
  await api.as(key).post(`/payments/pix/${charge.body.id}/simulate_payment`);
  const row = await api.db
    .selectFrom('sales')
    .select('id')
    .where('pix_charge_id', '=', charge.body.id)
    .executeTakeFirstOrThrow();
  vi.useRealTimers();
  return row.id;
}

/** The figure after its label on Início. */
const figure = (html: string, label: string) =>
  new RegExp(`<dt>${label}</dt><dd>([^<]*)</dd>`).exec(html)?.[1]?.replace(/\u00a0/g, ' ');

describeEachDatabase('dashboard Início', (api) => {
  let key: string;
  let session: DashboardSession;
  /** The first instant of today in São Paulo (UTC−3). */
  let todayStart: number;

  beforeAll(async () => {
    const store = await api.createStore({ name: 'Loja Números' });
    key = store.key;
    session = await dashboardLogin(api.baseUrl, await addDashboardUser(api, store.storeId, 'viewer'));
    const spNow = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
    todayStart = Date.parse(`${spNow}T03:00:00.000Z`);
    // Another store's sale never counts here.
    const other = await api.createStore({ name: 'Outra' });
    await sale(api, other.key, 999, 'Fora da Loja');

    await sale(api, key, 100, 'Hoje Cedo', new Date(todayStart));
    await sale(api, key, 50.25, 'Ana Recente');
    const refunded = await sale(api, key, 70, 'Reembolsada');
    expect((await api.as(key).post(`/sales/${refunded}/refund`)).status).toBe(200);
    // A minute before today in São Paulo (the clock runs on while the sale is made): yesterday.
    await sale(api, key, 10, 'Ontem Tarde', new Date(todayStart - 60_000));
    await sale(api, key, 20, 'Semana Passada', new Date(todayStart - 6 * DAY));
    await sale(api, key, 40, 'Mês Passado', new Date(todayStart - 29 * DAY));
    await sale(api, key, 80, 'Trimestre', new Date(todayStart - 89 * DAY));
    await sale(api, key, 160, 'Antiga Demais', new Date(todayStart - 90 * DAY));
  });

  it.each([
    ['hoje', 'Hoje', 'R$ 150,25', '3'],
    ['7', 'Últimos 7 dias', 'R$ 180,25', '5'],
    ['30', 'Últimos 30 dias', 'R$ 220,25', '6'],
    ['90', 'Últimos 90 dias', 'R$ 300,25', '7'],
  ])(
    'period %s: net revenue (refunds taken off) and sales made, on São Paulo days',
    async (periodo, heading, revenue, count) => {
      const page = await dashboardRequest(api.baseUrl, session, 'GET', `/dashboard?periodo=${periodo}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`<h2 id="resumo-titulo">${heading}</h2>`);
      expect(figure(page.text, 'Receita líquida')).toBe(revenue);
      expect(figure(page.text, 'Vendas')).toBe(count);
      // No purchase page was viewed: no views, no conversion (test/dashboard/inicio-analytics.test.ts).
      expect(figure(page.text, 'Visualizações')).toBe('0');
      expect(figure(page.text, 'Conversão')).toBe('—');
      // The chart's table fallback has one row per day.
      const rows = page.text.split('<th scope="row">').length - 1;
      expect(rows).toBe(periodo === 'hoje' ? 1 : Number(periodo));
      expect(page.text).toContain(`total ${revenue}`);
    },
  );

  it('the chart and its table give each day its revenue; the default period is 30 days', async () => {
    const html = (await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard')).text;
    const page = { text: html.replace(/ data-label="[^"]*"/g, '') };
    expect(page.text).toContain('<h2 id="resumo-titulo">Últimos 30 dias</h2>');
    const day = (ms: number) =>
      new Date(ms).toISOString().slice(8, 10) + '/' + new Date(ms).toISOString().slice(5, 7);
    const today = day(todayStart);
    expect(page.text.replace(/\u00a0/g, ' ')).toContain(
      `<th scope="row">${today}</th><td>R$ 150,25</td><td>3</td>`,
    );
    expect(page.text).toContain(`maior dia ${today} com R$ 150,25`);
    expect(page.text).toMatch(/<svg[^>]*role="img"[^>]*aria-labelledby="grafico-titulo grafico-descricao"/);
  });

  it("lists the latest sales, newest first, the store's own only", async () => {
    const html = (await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard')).text;
    // Without the cards' column labels (`data-label`), to match the cells as they read.
    const page = { text: html.replace(/ data-label="[^"]*"/g, '') };
    const names = [
      ...page.text.matchAll(/<tr><td><a [^>]*><time [^>]*>[^<]*<\/time><\/a><\/td><td>([^<]*)<\/td>/g),
    ].map((m) => m[1]);
    expect(names.slice(0, 3)).toEqual(['Reembolsada', 'Ana Recente', 'Hoje Cedo']);
    expect(page.text).toContain(
      'Reembolsada</td><td>—</td><td>R$&nbsp;70,00</td><td>Reembolsada</td>'.replace('&nbsp;', ' '),
    );
    expect(page.text).not.toContain('Fora da Loja');
  });

  it('refuses an unknown period', async () => {
    const page = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard?periodo=365');
    expect(page.status).toBe(400);
  });
});
