import { beforeAll, expect, it } from 'vitest';
import { NAME_SEARCH_WINDOW } from '../../src/channels/dashboard/sales/sales-filter.js';
import { describeEachDatabase } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import { cloneSales, paidSale } from './vendas-support.js';

/** The "Próxima página" link of a page, unescaped. */
const nextLink = (html: string) =>
  /<a href="(\/dashboard\/vendas\?[^"]*)">Próxima página<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, '&');

describeEachDatabase('dashboard Vendas: a name search reads a bounded window a page', (api) => {
  let session: DashboardSession;
  let rare: string;

  beforeAll(async () => {
    const store = await api.createStore({ name: 'Loja Busca' });
    session = await dashboardLogin(api.baseUrl, await addDashboardUser(api, store.storeId, 'viewer'));
    const base = await paidSale(api, store.key, 10, { name: 'Base', email: 'base@example.com' });
    // The rare name is older than the first window: the base and the window's other sales come first.
    const clones = await cloneSales(api, base, NAME_SEARCH_WINDOW + 20);
    rare = clones[NAME_SEARCH_WINDOW + 5]!;
    await api.db
      .updateTable('sales')
      .set({ customer: JSON.stringify({ name: 'Zuleica Quintanilha', email: 'z@example.com' }) })
      .where('id', '=', rare)
      .execute();
  }, 60_000);

  it('stops at its window, says so, and the next page searches the older sales', async () => {
    const first = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/vendas?q=quintanilha');
    expect(first.status).toBe(200);
    expect(first.text).toContain('A busca por nome olhou as vendas até');
    expect(first.text).not.toContain('Zuleica');
    const next = nextLink(first.text);
    expect(next).toMatch(/antes=[0-9a-f-]{36}/);
    const second = await dashboardRequest(api.baseUrl, session, 'GET', next!);
    expect(second.status).toBe(200);
    expect(second.text).toContain('Zuleica Quintanilha');
    expect(second.text).toContain(`/dashboard/vendas/${rare}`);
    // Fewer sales than a window remain: no floor, no note, no next page.
    expect(second.text).not.toContain('A busca por nome olhou');
    expect(nextLink(second.text)).toBeUndefined();
  });

  it('a common name fills its page inside the window; the CSV export is never windowed', async () => {
    const page = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/vendas?q=cliente');
    expect(page.text).not.toContain('A busca por nome olhou');
    expect(nextLink(page.text)).toMatch(/antes=/);
    const csv = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/vendas.csv?q=quintanilha');
    expect(csv.text.trim().split('\r\n')).toHaveLength(2);
    expect(csv.text).toContain('Zuleica Quintanilha');
  });
});

/** The sale ids of a Vendas page, in the order shown. */
const listedIds = (html: string) =>
  [...html.matchAll(/href="\/dashboard\/vendas\/([0-9a-f-]{36})"/g)].map((m) => m[1]!);

describeEachDatabase('dashboard Vendas: a name search ignores accents and case', (api) => {
  let session: DashboardSession;
  let joao: string;
  let conceicao: string;
  let angela: string;
  const search = async (q: string) =>
    listedIds(
      (await dashboardRequest(api.baseUrl, session, 'GET', `/dashboard/vendas?q=${encodeURIComponent(q)}`))
        .text,
    ).sort();

  beforeAll(async () => {
    const store = await api.createStore({ name: 'Loja Acentos' });
    session = await dashboardLogin(api.baseUrl, await addDashboardUser(api, store.storeId, 'viewer'));
    joao = await paidSale(api, store.key, 10, { name: 'João da Conceição' });
    conceicao = await paidSale(api, store.key, 10, { name: 'MARIA CONCEICAO' });
    angela = await paidSale(api, store.key, 10, { name: 'ÂNGELA Müller' });
    await paidSale(api, store.key, 10, { name: 'Pedro Alves' });
  });

  it('"joao" finds "João", "CONCEIÇÃO" finds "conceicao", on both databases', async () => {
    expect(await search('joao')).toEqual([joao]);
    expect(await search('JOÃO')).toEqual([joao]);
    expect(await search('CONCEIÇÃO')).toEqual([joao, conceicao].sort());
    expect(await search('conceicao')).toEqual([joao, conceicao].sort());
    expect(await search('angela muller')).toEqual([angela]);
    expect(await search('Ângela')).toEqual([angela]);
    const csv = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/vendas.csv?q=joao');
    expect(csv.text).toContain('João da Conceição');
  });
});
