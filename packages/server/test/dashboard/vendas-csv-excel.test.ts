import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import { cellsEveryWay, isFormulaCell, readCsv } from '../support/csv-reader.js';
import { csvField, neutraliseFormulas } from '../../src/channels/dashboard/sales/csv-field.js';
import { paidSale } from './vendas-support.js';

const EXCEL_HEADER = [
  'Venda',
  'Data',
  'Status',
  'Valor (R$)',
  'Pagamento',
  'Produto',
  'Order bumps',
  'Cliente',
  'E-mail',
  'WhatsApp',
  'CPF/CNPJ',
  'Cupom',
  'utm_source',
  'utm_campaign',
  'Bandeira',
  'Final do cartão',
  'Parcelas',
];

/** Values a buyer may type that a spreadsheet splitting on `,` or `;` would otherwise run. */
const HOSTILE = 'Ana, =1+1; -2; @SUM(A1);"=3"\n+4\t, \t=5';

describeEachDatabase(
  'dashboard Vendas: the Excel (pt-BR) export and formulas read either way',
  (api: TestApi) => {
    let session: DashboardSession;
    let promo: string;
    let hostile: string;
    let refunded: string;
    const get = (path: string) => dashboardRequest(api.baseUrl, session, 'GET', path);

    beforeAll(async () => {
      const { key, storeId } = await api.createStore({ name: 'Loja Excel' });
      expect((await api.as(key).patch('/store', { timezone: 'America/Manaus' })).status).toBe(200);
      session = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'viewer'));
      // The buyer: a campaign that is a formula once the file is split on `;`.
      const charge = await api.as(key).post('/payments/pix', {
        amount: 1234.56,
        customer: {
          name: 'João da Silva',
          email: 'joao@example.com',
          whatsapp: '+5511987654321',
          document: '529.982.247-25',
        },
        tracking: { utm_source: 'instagram', utm_campaign: 'promo;=1+1' },
      });
      expect(charge.status).toBe(201);
      await api.as(key).post(`/payments/pix/${charge.body.id}/simulate_payment`);
      promo = (
        await api.db
          .selectFrom('sales')
          .select('id')
          .where('pix_charge_id', '=', charge.body.id)
          .executeTakeFirstOrThrow()
      ).id;
      // 03:30 UTC on 10 January is 23:30 on the 9th in Manaus; the sale had a bump and a coupon.
      await api.db
        .updateTable('sales')
        .set({
          created_at: '2026-01-10T03:30:00.000Z',
          items: JSON.stringify([
            {
              product_id: '00000000-0000-4000-8000-000000000001',
              nome: 'Curso',
              amount: 1214.66,
              kind: 'product',
            },
            {
              product_id: '00000000-0000-4000-8000-000000000002',
              nome: 'E-book; =bônus',
              amount: 19.9,
              kind: 'order_bump',
            },
          ]),
          coupon: JSON.stringify({ code: 'VERAO', discount: 10 }),
        })
        .where('id', '=', promo)
        .execute();
      hostile = await paidSale(api, key, 0.05, { name: 'Hostil', email: 'hostil@example.com' });
      await api.db
        .updateTable('sales')
        .set({ customer: JSON.stringify({ name: HOSTILE, email: '-x@example.com' }) })
        .where('id', '=', hostile)
        .execute();
      refunded = await paidSale(api, key, 7, { name: 'Devolvida' });
      await api.db.updateTable('sales').set({ status: 'refunded' }).where('id', '=', refunded).execute();
    });

    it('no cell of either export starts a formula, read with `,` or with `;`, quotes honoured or not', async () => {
      for (const path of ['/dashboard/vendas.csv', '/dashboard/vendas-excel.csv']) {
        const response = await get(path);
        expect(response.status).toBe(200);
        const formulas = cellsEveryWay(response.text).filter(isFormulaCell);
        expect(formulas, path).toEqual([]);
      }
    });

    it('the Excel file: BOM, `;`, decimal comma, the store’s time, Portuguese, bumps and WhatsApp', async () => {
      const response = await get('/dashboard/vendas-excel.csv');
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(response.headers.get('content-disposition')).toBe('attachment; filename="vendas-excel.csv"');
      // fetch's text() drops a BOM: the bytes show it is there.
      const raw = await fetch(`${api.baseUrl}/dashboard/vendas-excel.csv`, {
        headers: { cookie: session.cookie },
      });
      const bytes = Buffer.from(await raw.arrayBuffer());
      expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const records = readCsv(bytes.toString('utf8').slice(1), ';');
      expect(records[0]).toEqual(EXCEL_HEADER);
      expect(records.slice(1).every((row) => row.length === EXCEL_HEADER.length)).toBe(true);
      const byId = new Map(records.slice(1).map((row) => [row[0], row]));
      const row = byId.get(promo)!;
      expect([...row.slice(0, 5), ...row.slice(6)]).toEqual([
        promo,
        '09/01/2026 23:30',
        'Aprovada',
        '1234,56',
        'Pix',
        "E-book;' =bônus (19,90)",
        'João da Silva',
        'joao@example.com',
        "'+5511987654321",
        '529.982.247-25',
        'VERAO',
        'instagram',
        "promo;'=1+1",
        '',
        '',
        '',
      ]);
      expect(byId.get(refunded)!.slice(2, 4)).toEqual(['Reembolsada', '7,00']);
      expect(byId.get(hostile)![7]).toBe(neutraliseFormulas(HOSTILE));
      expect(byId.get(hostile)![3]).toBe('0,05');
    });

    it('the standard CSV keeps its conventions and reads back the same with `,`', async () => {
      const records = readCsv((await get('/dashboard/vendas.csv')).text, ',');
      expect(records[0]![0]).toBe('id');
      const row = records.find((record) => record[0] === promo)!;
      expect(row.slice(1, 4)).toEqual(['2026-01-10T03:30:00.000Z', 'approved', '1234.56']);
      expect(row[11]).toBe("promo;'=1+1");
      expect(records.find((record) => record[0] === hostile)![6]).toBe(neutraliseFormulas(HOSTILE));
    });
  },
);

describe('csvField', () => {
  const risky = fc.string({
    unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', '\n', ',', ';', '"', "'", ' ', 'a'),
  });

  it('any values, joined with either separator, read back as written and never start a formula', () => {
    fc.assert(
      fc.property(
        fc.array(risky, { minLength: 1, maxLength: 4 }),
        fc.constantFrom(',', ';'),
        (values, separator) => {
          const text = `${values.map(csvField).join(separator)}\r\n`;
          expect(cellsEveryWay(text).filter(isFormulaCell)).toEqual([]);
          expect(readCsv(text, separator)).toEqual([values.map(neutraliseFormulas)]);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
