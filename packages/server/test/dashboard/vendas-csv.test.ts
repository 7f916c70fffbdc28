import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import { CSV_BATCH } from '../../src/channels/dashboard/sales/sales-csv.js';
import { cloneSales, paidSale } from './vendas-support.js';

const HEADER =
  'id,created_at,status,amount,payment_method,product,customer_name,customer_email,customer_document,coupon,utm_source,utm_campaign,card_brand,card_last4,installments';

/** RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i += 1;
    } else if (quoted && c === '"') {
      quoted = false;
    } else if (quoted) {
      field += c;
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i += 1;
    } else {
      field += c;
    }
  }
  return records;
}

describeEachDatabase('dashboard Vendas CSV export', (api: TestApi) => {
  let key: string;
  let session: DashboardSession;
  let clones: string[];
  let tricky: string;

  const csv = (query = '') => dashboardRequest(api.baseUrl, session, 'GET', `/dashboard/vendas.csv${query}`);

  beforeAll(async () => {
    const store = await api.createStore({ name: 'Loja CSV' });
    key = store.key;
    session = await dashboardLogin(api.baseUrl, await addDashboardUser(api, store.storeId, 'viewer'));
    const base = await paidSale(api, key, 1234.56, { name: 'Base', email: 'base@example.com' });
    // 253 rows with the base and the tricky sales: a full batch of CSV_BATCH (200) and a short one.
    clones = await cloneSales(api, base, 250);
    tricky = await paidSale(api, key, 0.05, {
      name: '=HYPERLINK("http://evil.example","x"), <b>',
      email: 'tricky@example.com',
      document: '529.982.247-25',
    });
    await paidSale(api, key, 2, { name: 'Linha\nDois, "Três"', email: '+cmd@example.com' });
    const other = await api.createStore({ name: 'Outra' });
    await paidSale(api, other.key, 9, { name: 'Fora da Loja' });
  });

  it('streams UTF-8 CSV: the header, then every sale of the store newest first', async () => {
    const response = await csv();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="vendas.csv"');
    const records = parseCsv(response.text);
    expect(records[0]!.join(',')).toBe(HEADER);
    const rows = records.slice(1);
    expect(rows).toHaveLength(253);
    expect(rows.length).toBeGreaterThan(CSV_BATCH);
    expect(rows.every((row) => row.length === 15)).toBe(true);
    expect(new Set(rows.map((row) => row[0])).size).toBe(253);
    expect(rows.slice(-250).map((row) => row[0])).toEqual(clones);
    expect(response.text).not.toContain('Fora da Loja');
    const base = rows[2]!;
    expect(base.slice(2, 5)).toEqual(['approved', '1234.56', 'pix']);
    expect(base[6]).toBe('Base');
  });

  it('escapes every field and neutralises formulas with a leading apostrophe', async () => {
    const records = parseCsv((await csv()).text);
    const row = records.find((record) => record[0] === tricky)!;
    expect(row[3]).toBe('0.05');
    expect(row[6]).toBe('\'=HYPERLINK("http://evil.example","x"), <b>');
    expect(row[8]).toBe('52998224725');
    expect(row.slice(9)).toEqual(['', '', '', '', '', '']);
    const text = (await csv()).text;
    expect(text).toContain('"\'=HYPERLINK(""http://evil.example"",""x""), <b>"');
    expect(text).toContain('"Linha\nDois, ""Três"""');
    expect(text).toContain(",'+cmd@example.com,");
  });

  it('applies the filters of the list', async () => {
    const records = parseCsv((await csv('?q=tricky%40example.com&status=approved')).text);
    expect(records.map((record) => record[0])).toEqual(['id', tricky]);
    const none = parseCsv((await csv('?status=refunded')).text);
    expect(none).toEqual([HEADER.split(',')]);
  });

  it('refuses a bad filter and a signed-out request', async () => {
    expect((await csv('?de=ontem')).status).toBe(400);
    const out = await dashboardRequest(api.baseUrl, null, 'GET', '/dashboard/vendas.csv');
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/dashboard/login');
  });
});
