import { beforeAll, expect, it } from 'vitest';
import { formatBrl, toCents } from '../../src/platform/values/money.js';
import { paidSale } from '../dashboard/vendas-support.js';
import { createShop, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import { cellsEveryWay, isFormulaCell, readCsv } from '../support/csv-reader.js';
import { describeEachDatabase } from '../support/test-api.js';
import { cardSale, chargeBack, interestFreeUpTo } from './card-sale-support.js';

/** A brand as a PSP could send it: a formula in a spreadsheet unless neutralised. */
const HOSTILE_BRAND = '=HYPERLINK("http://evil.example";"x");@x';

describeEachDatabase('card sales on the dashboard: Vendas, a sale, Início and both CSVs', (api) => {
  let shop: Shop;
  let session: DashboardSession;
  let pix: string;
  let free: string;
  let card: { payment: any; saleId: string };
  let disputed: { payment: any; saleId: string };
  let hostile: { payment: any; saleId: string };

  const get = (path: string) => dashboardRequest(api.baseUrl, session, 'GET', path);
  const link = (saleId: string) => `href="/dashboard/vendas/${saleId}"`;

  beforeAll(async () => {
    shop = await createShop(api);
    session = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'viewer'));
    await interestFreeUpTo(api, shop.storeId, 3);
    pix = await paidSale(api, shop.key, 10, { name: 'Rui Pix', email: 'rui@example.com' });
    card = await cardSale(api, shop.key, { amount: 100, installments: 3 });
    disputed = await cardSale(api, shop.key, { amount: 40, installments: 1 });
    await chargeBack(api, disputed.saleId, '2026-11-30T15:00:00.000Z');
    hostile = await cardSale(api, shop.key, { amount: 20, installments: 2 });
    await api.db
      .updateTable('card_payments')
      .set({ card_brand: HOSTILE_BRAND, card_last4: '0042' })
      .where('id', '=', hostile.payment.id)
      .execute();
    await api.as(shop.key).post('/coupons', { code: 'TUDO', amount_off: 500 });
    await placeOrder(api, shop, { coupon: 'TUDO' });
    const sales = (await api.as(shop.key).get('/sales?limit=100')).body.data as any[];
    free = sales.find((sale) => sale.payment_method === 'free').id;
  });

  it('Vendas filters by payment method and shows each sale’s payment in its own labelled cell', async () => {
    const all = await get('/dashboard/vendas');
    expect(all.status).toBe(200);
    expect(all.text).toContain('<label for="f-metodo">Pagamento</label>');
    expect(all.text).toContain('<th scope="col">Pagamento</th>');
    expect(all.text).toContain('<td data-label="Pagamento">Cartão Visa •••• 4242, 3x</td>');
    expect(all.text).toContain('<td data-label="Pagamento">Pix</td>');
    expect(all.text).toContain('<td data-label="Pagamento">Gratuita</td>');

    const cards = await get('/dashboard/vendas?metodo=card');
    for (const id of [card.saleId, disputed.saleId, hostile.saleId]) expect(cards.text).toContain(link(id));
    for (const id of [pix, free]) expect(cards.text).not.toContain(link(id));
    expect(cards.text).toContain('<option value="card" selected>Cartão</option>');
    // What a PSP sends is text on the page.
    expect(cards.text).toContain(
      'Cartão =HYPERLINK(&quot;http://evil.example&quot;;&quot;x&quot;);@x •••• 0042, 2x',
    );
    // The CSV links keep the filter.
    expect(cards.text).toContain('href="/dashboard/vendas.csv?metodo=card"');

    const pixes = await get('/dashboard/vendas?metodo=pix');
    expect(pixes.text).toContain(link(pix));
    for (const id of [card.saleId, free]) expect(pixes.text).not.toContain(link(id));
    const frees = await get('/dashboard/vendas?metodo=free');
    expect(frees.text).toContain(link(free));
    expect(frees.text).not.toContain(link(pix));

    // With every search kind: the card payment's own customer never confuses the sale's.
    for (const q of ['ana', 'ana%40example.com', '52998224725']) {
      const found = await get(`/dashboard/vendas?metodo=card&q=${q}`);
      expect(found.status, q).toBe(200);
      expect(found.text, q).toContain(link(card.saleId));
    }
    expect((await get('/dashboard/vendas?metodo=boleto')).status).toBe(400);
  });

  it('a charged-back sale is "Contestada", and the status filter finds it', async () => {
    const disputes = await get('/dashboard/vendas?status=charged_back');
    expect(disputes.text).toContain(link(disputed.saleId));
    expect(disputes.text).not.toContain(link(card.saleId));
    expect(disputes.text).toContain('<td data-label="Status">Contestada</td>');
    const page = await get(`/dashboard/vendas/${disputed.saleId}`);
    expect(page.text).toContain('<dt>Status</dt><dd>Contestada</dd>');
    expect(page.text).toContain('<dt>Contestada em</dt>');
    expect(page.text).toContain('datetime="2026-11-30T15:00:00.000Z"');
  });

  it('a card sale’s page shows its card payment: card, installments, total, authorization and PSP', async () => {
    const page = await get(`/dashboard/vendas/${card.saleId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<dt>Pagamento</dt><dd>Cartão de crédito</dd>');
    expect(page.text).toContain('Pagamento com cartão');
    expect(page.text).toContain('<dt>Cartão</dt><dd>Visa •••• 4242</dd>');
    expect(page.text).toContain('<dt>Parcelas</dt><dd>3x de R$ 33,33</dd>');
    expect(page.text).toContain('<dt>Total pago</dt><dd>R$ 100,00 (sem juros)</dd>');
    expect(page.text).toContain('<dt>Código de autorização</dt><dd>SIM000</dd>');
    expect(page.text).toContain('<dt>PSP</dt><dd>Simulado (modo de teste)</dd>');
    expect(page.text).toContain(`<dd>${card.payment.id}</dd>`);
    expect(page.text).not.toContain('<dt>Recusa</dt>');
    expect(page.text).not.toContain('Contestada em');
    // Its events include the card payment's.
    expect(page.text).toContain('<code>card_payment.approved</code>');
    expect(page.text).toContain('<code>sale.approved</code>');

    // With interest (above the interest-free installments) the total says how much of it is interest.
    const dear = await cardSale(api, shop.key, { amount: 100, installments: 6 });
    const total = toCents(dear.payment.total_amount);
    expect(total).toBeGreaterThan(10_000);
    const dearPage = await get(`/dashboard/vendas/${dear.saleId}`);
    expect(dearPage.text).toContain(
      `<dt>Total pago</dt><dd>${formatBrl(total)} (com ${formatBrl(total - 10_000)} de juros)</dd>`,
    );
    expect(dearPage.text).toContain(
      `<dt>Parcelas</dt><dd>6x de ${formatBrl(toCents(dear.payment.installment_amount))}</dd>`,
    );

    // A decline the PSP recorded on the payment is named, in Portuguese.
    await api.db
      .updateTable('card_payments')
      .set({ decline_code: 'fraud_suspected', decline_provider_code: 'cc_rejected_high_risk' })
      .where('id', '=', dear.payment.id)
      .execute();
    const declined = await get(`/dashboard/vendas/${dear.saleId}`);
    expect(declined.text).toContain('<dt>Recusa</dt>');
    expect(declined.text).toContain('fraud_suspected');
    expect(declined.text).toContain('(PSP: cc_rejected_high_risk)');
    expect(declined.text).toContain('O banco emissor recusou a compra por segurança.');

    const pixPage = await get(`/dashboard/vendas/${pix}`);
    expect(pixPage.text).toContain('<dt>Pagamento</dt><dd>Pix</dd>');
    expect(pixPage.text).not.toContain('Pagamento com cartão');
  });

  it('Início splits the period’s sales into Pix and Cartão, and lists the latest with their payment', async () => {
    const home = await get('/dashboard?periodo=7');
    expect(home.status).toBe(200);
    const byMethod = home.text.slice(home.text.indexOf('Vendas por meio de pagamento'));
    expect(byMethod).toMatch(/<dt>Pix<\/dt><dd>1<span class="figure-note">R\$ 10,00<\/span><\/dd>/);
    // 100 + 40 (charged back: still a sale of the period) + 20 + 100 of the sale made above.
    expect(byMethod).toMatch(/<dt>Cartão<\/dt><dd>4<span class="figure-note">R\$ 260,00<\/span><\/dd>/);
    expect(home.text).toContain('<td data-label="Pagamento">Cartão Visa •••• 4242, 3x</td>');
  });

  it('the standard CSV has the card’s brand, last four and installments; empty for the others', async () => {
    const text = (await get('/dashboard/vendas.csv')).text;
    const records = readCsv(text, ',');
    expect(records[0]!.slice(-3)).toEqual(['card_brand', 'card_last4', 'installments']);
    const byId = new Map(records.slice(1).map((row) => [row[0], row]));
    expect(byId.get(card.saleId)!.slice(2, 5)).toEqual(['approved', '100.00', 'card']);
    expect(byId.get(card.saleId)!.slice(-3)).toEqual(['visa', '4242', '3']);
    expect(byId.get(disputed.saleId)!.slice(2, 5)).toEqual(['charged_back', '40.00', 'card']);
    expect(byId.get(pix)!.slice(-3)).toEqual(['', '', '']);
    expect(byId.get(free)!.slice(-3)).toEqual(['', '', '']);
    expect(byId.get(hostile.saleId)!.slice(-3)).toEqual([
      `'${HOSTILE_BRAND.replace(';@', ";'@")}`,
      '0042',
      '2',
    ]);
    expect(cellsEveryWay(text).filter(isFormulaCell)).toEqual([]);
    const filtered = readCsv((await get('/dashboard/vendas.csv?metodo=pix')).text, ',');
    expect(filtered.slice(1).map((row) => row[0])).toEqual([pix]);
  });

  it('the Excel CSV names the brand, keeps the last four as text and counts the installments', async () => {
    const raw = await fetch(`${api.baseUrl}/dashboard/vendas-excel.csv`, {
      headers: { cookie: session.cookie },
    });
    const text = Buffer.from(await raw.arrayBuffer())
      .toString('utf8')
      .slice(1);
    const records = readCsv(text, ';');
    expect(records[0]!.slice(-3)).toEqual(['Bandeira', 'Final do cartão', 'Parcelas']);
    const byId = new Map(records.slice(1).map((row) => [row[0], row]));
    expect(byId.get(card.saleId)!.slice(2, 5)).toEqual(['Aprovada', '100,00', 'Cartão']);
    expect(byId.get(card.saleId)!.slice(-3)).toEqual(['Visa', '•••• 4242', '3']);
    expect(byId.get(disputed.saleId)![2]).toBe('Contestada');
    expect(byId.get(pix)!.slice(-3)).toEqual(['', '', '']);
    expect(byId.get(free)![4]).toBe('Gratuita');
    expect(byId.get(hostile.saleId)!.slice(-2)).toEqual(['•••• 0042', '2']);
    expect(cellsEveryWay(text).filter(isFormulaCell)).toEqual([]);
  });
});
