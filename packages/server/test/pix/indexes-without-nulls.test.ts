import { sql } from 'kysely';
import { expect, it } from 'vitest';
import * as indexesWithoutNulls from '../../src/platform/db/migrations/0032-indexes-without-nulls.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';

const PARTIAL = [
  'pix_charges_external_id',
  'pix_charges_next_check',
  'sales_refund_next_check',
  'orders_sale',
];

/** Each index's definition as the database holds it. */
async function definitions(api: TestApi): Promise<Record<string, string>> {
  const rows =
    api.dialect === 'sqlite'
      ? (
          await sql<{
            name: string;
            sql: string;
          }>`select name, sql from sqlite_master where type = 'index'`.execute(api.db)
        ).rows
      : (
          await sql<{
            name: string;
            sql: string;
          }>`select indexname as name, indexdef as sql from pg_indexes where schemaname = current_schema()`.execute(
            api.db,
          )
        ).rows;
  return Object.fromEntries(
    rows.filter((row) => PARTIAL.includes(row.name)).map((row) => [row.name, row.sql]),
  );
}

describeEachDatabase('migration 0032: indexes without the null rows', (api) => {
  it('holds only the rows with a value, keeps external_id unique, and goes down and up again', async () => {
    const partial = await definitions(api);
    expect(Object.keys(partial).sort()).toEqual([...PARTIAL].sort());
    for (const definition of Object.values(partial)) expect(definition).toMatch(/ where .+ is not null/i);
    expect(partial.pix_charges_external_id).toMatch(/unique/i);

    const { key } = await api.createStore();
    const pay = (externalId?: string) =>
      api.as(key).post('/payments/pix', { amount: 10, ...(externalId ? { external_id: externalId } : {}) });
    // Charges without an external_id never meet in the unique index; one with it is found again.
    expect((await pay()).status).toBe(201);
    expect((await pay()).status).toBe(201);
    const first = await pay('pedido-32');
    expect(first.status).toBe(201);
    const again = await pay('pedido-32');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);

    const raw = api.db as never;
    await indexesWithoutNulls.down(raw);
    for (const definition of Object.values(await definitions(api)))
      expect(definition).not.toMatch(/ where /i);
    await indexesWithoutNulls.up(raw);
    expect(await definitions(api)).toEqual(partial);
  });

  it.runIf(api.dialect === 'sqlite')('is what SQLite plans the queries on', async () => {
    // As the service asks (a value compared, never a null), with values in place of its parameters.
    const plans = {
      pix_charges_external_id: `select * from pix_charges where store_id = 's' and livemode = 0 and external_id = 'e'`,
      pix_charges_next_check: `select id from pix_charges where next_check_at <= '2026-11-29' limit 10`,
      sales_refund_next_check: `select id from sales where refund_next_check_at <= '2026-11-29' limit 10`,
      orders_sale: `select id from orders where store_id = 's' and sale_id = 'v'`,
    };
    for (const [index, query] of Object.entries(plans)) {
      const plan = await sql<{ detail: string }>`explain query plan ${sql.raw(query)}`.execute(api.db);
      expect(plan.rows.map((row) => row.detail).join(' ')).toContain(`USING INDEX ${index}`);
    }
  });
});
