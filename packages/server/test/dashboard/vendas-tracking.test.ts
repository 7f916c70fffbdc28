import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import { chargeOfOrder, createShop, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { orderIdOf } from '../orders/orders-support.js';

const HEADER =
  'id,created_at,status,amount,payment_method,product,customer_name,customer_email,customer_document,coupon,utm_source,utm_campaign,card_brand,card_last4,installments';

/** The sale paid with a charge. */
async function saleOf(api: TestApi, charge: string) {
  const row = await api.db
    .selectFrom('sales')
    .select('id')
    .where('pix_charge_id', '=', charge)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The CSV line of a sale (the export has no line breaks in these fields). */
const lineOf = (csv: string, id: string) => csv.split('\r\n').find((line) => line.startsWith(`${id},`));

describeEachDatabase('dashboard Vendas: tracking and recovered sales', (api) => {
  let shop: Shop;
  let session: DashboardSession;
  let tracked: string;
  let hostile: string;
  let recovered: string;
  let plain: string;

  beforeAll(async () => {
    shop = await createShop(api);
    session = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'viewer'));

    // A charge made through the API with campaign parameters.
    const charge = await api.as(shop.key).post('/payments/pix', {
      amount: 10,
      customer: { name: 'Ana Campanha', email: 'ana@example.com' },
      tracking: {
        utm_source: 'facebook',
        utm_medium: 'cpc',
        utm_campaign: 'black-friday',
        fbclid: 'IwAR0abc',
      },
    });
    expect(charge.status, charge.text).toBe(201);
    await api.as(shop.key).post(`/payments/pix/${charge.body.id}/simulate_payment`);
    tracked = await saleOf(api, charge.body.id);

    // Values a spreadsheet or a page must not run: a formula, a comma and quotes, markup.
    const evil = await api.as(shop.key).post('/payments/pix', {
      amount: 11,
      tracking: { utm_source: '=cmd|"/c calc"!A1', utm_campaign: '<script>alert(1)</script>, "x"' },
    });
    expect(evil.status, evil.text).toBe(201);
    await api.as(shop.key).post(`/payments/pix/${evil.body.id}/simulate_payment`);
    hostile = await saleOf(api, evil.body.id);

    // An order on the purchase page, abandoned, then paid: a recovered sale carrying the page's tracking.
    const { token } = await placeOrder(api, shop, {
      tracking: { utm_source: 'email', utm_campaign: 'volta' },
    });
    const orderId = await orderIdOf(api, token!);
    expect((await api.as(shop.key).post(`/orders/${orderId}/simulate_abandonment`)).status).toBe(200);
    const orderCharge = await chargeOfOrder(api, token!);
    expect((await api.as(shop.key).post(`/payments/pix/${orderCharge}/simulate_payment`)).status).toBe(200);
    recovered = await saleOf(api, orderCharge);
    expect((await api.as(shop.key).get(`/sales/${recovered}`)).body.recovered).toBe(true);

    const none = await api.as(shop.key).post('/payments/pix', { amount: 12 });
    await api.as(shop.key).post(`/payments/pix/${none.body.id}/simulate_payment`);
    plain = await saleOf(api, none.body.id);
  });

  it('the CSV has the documented header and each sale’s utm_source and utm_campaign', async () => {
    const csv = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/vendas.csv');
    expect(csv.status).toBe(200);
    expect(csv.text.split('\r\n')[0]).toBe(HEADER);
    // The card's three columns follow, empty for a Pix sale.
    expect(lineOf(csv.text, tracked)!.split(',').slice(-5)).toEqual(['facebook', 'black-friday', '', '', '']);
    expect(lineOf(csv.text, recovered)!.split(',').slice(-5)).toEqual(['email', 'volta', '', '', '']);
    // A sale without tracking: the two columns are empty, the row still has fifteen fields.
    expect(lineOf(csv.text, plain)!.split(',')).toHaveLength(15);
    expect(lineOf(csv.text, plain)!.endsWith(',,,,,,')).toBe(true);
  });

  it('tracking values are quoted and a formula is neutralised', async () => {
    const csv = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/vendas.csv');
    expect(
      lineOf(csv.text, hostile)!.endsWith(`,"'=cmd|""/c calc""!A1","<script>alert(1)</script>, ""x""",,,`),
    ).toBe(true);
  });

  it('the sale page shows "Rastreamento" with every parameter the sale came with', async () => {
    const page = await dashboardRequest(api.baseUrl, session, 'GET', `/dashboard/vendas/${tracked}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h2 id="rastreamento-titulo">Rastreamento</h2>');
    for (const [key, value] of [
      ['utm_source', 'facebook'],
      ['utm_medium', 'cpc'],
      ['utm_campaign', 'black-friday'],
      ['fbclid', 'IwAR0abc'],
    ])
      expect(page.text).toContain(`<dt><code>${key}</code></dt><dd>${value}</dd>`);
    expect(page.text).not.toContain('Venda recuperada');
  });

  it('a tracking value is escaped on the page', async () => {
    const page = await dashboardRequest(api.baseUrl, session, 'GET', `/dashboard/vendas/${hostile}`);
    expect(page.text).not.toContain('<script>alert(1)</script>');
    expect(page.text).toContain('&lt;script>alert(1)&lt;/script>, &quot;x&quot;');
  });

  it('a recovered sale says "Venda recuperada"; a sale without tracking says it has none', async () => {
    const page = await dashboardRequest(api.baseUrl, session, 'GET', `/dashboard/vendas/${recovered}`);
    expect(page.text).toContain('Venda recuperada');
    expect(page.text).toContain('<dt><code>utm_campaign</code></dt><dd>volta</dd>');
    const bare = await dashboardRequest(api.baseUrl, session, 'GET', `/dashboard/vendas/${plain}`);
    expect(bare.text).toContain('Sem parâmetros de campanha');
    expect(bare.text).not.toContain('Venda recuperada');
  });
});
