import { beforeAll, expect, it } from 'vitest';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { paidSale } from './vendas-support.js';

/** The sale ids of a Vendas page, in the order shown. */
const listedIds = (html: string) =>
  [...html.matchAll(/href="\/dashboard\/vendas\/([0-9a-f-]{36})"/g)].map((m) => m[1]!);

/**
 * A store in Manaus (UTC−4) counts and shows its days there: 03:30 UTC on 10 January is 23:30 on the
 * 9th in Manaus, though already 00:30 on the 10th in São Paulo, the zone of a store without one.
 */
describeEachDatabase("dashboard dates in the store's time zone", (api: TestApi) => {
  let key: string;
  let editor: DashboardSession;
  let late: string;
  const get = (path: string) => dashboardRequest(api.baseUrl, editor, 'GET', path);
  const setZone = async (timezone: string) =>
    expect((await api.as(key).patch('/store', { timezone })).status).toBe(200);

  beforeAll(async () => {
    let storeId: string;
    ({ key, storeId } = await api.createStore({ name: 'Loja de Manaus' }));
    await setZone('America/Manaus');
    editor = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'editor'));
    late = await paidSale(api, key, 15, { name: 'Noite Tarde', email: 'noite@example.com' });
    await api.db
      .updateTable('sales')
      .set({ created_at: '2026-01-10T03:30:00.000Z' })
      .where('id', '=', late)
      .execute();
  });

  it('Vendas filters "De" and "Até" by the store\'s days, and the list, the sale and the CSV agree', async () => {
    expect(listedIds((await get('/dashboard/vendas?de=2026-01-09&ate=2026-01-09')).text)).toEqual([late]);
    expect(listedIds((await get('/dashboard/vendas?de=2026-01-10&ate=2026-01-10')).text)).toEqual([]);
    expect(listedIds((await get('/dashboard/vendas?ate=2026-01-09')).text)).toEqual([late]);

    const list = await get('/dashboard/vendas');
    expect(list.text).toMatch(/<time datetime="2026-01-10T03:30:00.000Z">09\/01\/2026,? 23:30<\/time>/);
    const sale = await get(`/dashboard/vendas/${late}`);
    expect(sale.text).toMatch(
      /<dd><time datetime="2026-01-10T03:30:00.000Z">09\/01\/2026,? 23:30<\/time><\/dd>/,
    );

    const csv = await get('/dashboard/vendas.csv?de=2026-01-09&ate=2026-01-09');
    expect(csv.status).toBe(200);
    expect(
      csv.text
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.split(',')[0]),
    ).toEqual([late]);
    const none = await get('/dashboard/vendas.csv?de=2026-01-10');
    expect(none.text.trim().split('\n')).toHaveLength(1);
  });

  it("a change of the store's zone shows on the next page, signed in already", async () => {
    await setZone('UTC');
    try {
      expect(listedIds((await get('/dashboard/vendas?de=2026-01-10&ate=2026-01-10')).text)).toEqual([late]);
      expect((await get('/dashboard/vendas')).text).toMatch(/>10\/01\/2026,? 03:30<\/time>/);
    } finally {
      await setZone('America/Manaus');
    }
  });

  it("a coupon is valid through the last millisecond of its day in the store's zone", async () => {
    const created = await dashboardRequest(api.baseUrl, editor, 'POST', '/dashboard/cupons', {
      code: 'MANAUS',
      percent_off: '5',
      amount_off: '',
      max_redemptions: '',
      expires_on: '2099-01-31',
      product_codes: '',
    });
    expect(created.status, created.text).toBe(303);
    const id = /\/dashboard\/cupons\/(cpn_[0-9A-Za-z]{24})/.exec(created.headers.get('location') ?? '')![1]!;
    expect((await api.as(key).get(`/coupons/${id}`)).body.expires_at).toBe('2099-02-01T03:59:59.999Z');

    const page = await get(`/dashboard/cupons/${id}`);
    expect(page.text).toContain('value="2099-01-31"');
    expect(page.text).toContain('Até 31/01/2099');
    expect((await get('/dashboard/cupons')).text).toContain('Até 31/01/2099');

    // Saved again with the same day, the validity is left as it is.
    const saved = await dashboardRequest(api.baseUrl, editor, 'POST', `/dashboard/cupons/${id}`, {
      code: 'MANAUS',
      percent_off: '5',
      amount_off: '',
      max_redemptions: '3',
      expires_on: '2099-01-31',
      product_codes: '',
    });
    expect(saved.status, saved.text).toBe(303);
    expect((await api.as(key).get(`/coupons/${id}`)).body).toMatchObject({
      max_redemptions: 3,
      expires_at: '2099-02-01T03:59:59.999Z',
    });
  });
});
