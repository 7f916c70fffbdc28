import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { localDate } from '../../values/local-date.js';

/**
 * The daily totals split by payment method (API 1.3.0's `by_method`): sales and their amount paid by
 * Pix and by card. A card sale counts the goods' price, never the buyer's interest; a free sale counts
 * in neither.
 */
interface Rows {
  stores: { id: string; timezone: string };
  sales: {
    store_id: string;
    livemode: number;
    product_id: string | null;
    created_at: string;
    amount_cents: number;
    payment_method: string;
  };
  analytics_daily: {
    store_id: string;
    livemode: number;
    day: string;
    product_id: string;
    pix_sales: number;
    pix_gross_cents: number;
    card_sales: number;
    card_gross_cents: number;
  };
}

const COLUMNS = ['pix_sales', 'pix_gross_cents', 'card_sales', 'card_gross_cents'] as const;

interface Others {
  store_id: string;
  livemode: number;
  day: string;
  product_id: string;
  sales: number;
  cardSales: number;
  cardCents: number;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) {
    await db.schema
      .alterTable('analytics_daily')
      .addColumn(column, 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  }
  // Days already counted: every sale was a Pix but the free ones (amount 0) and any card sale, which
  // are few, so the Pix figures are the day's less those, counted on the same local days as before.
  const rows = db as unknown as Kysely<Rows>;
  await rows
    .updateTable('analytics_daily')
    .set({ pix_sales: sql`sales`, pix_gross_cents: sql`gross_cents` })
    .execute();
  const zones = new Map(
    (await rows.selectFrom('stores').select(['id', 'timezone']).execute()).map((s) => [s.id, s.timezone]),
  );
  const others = new Map<string, Others>();
  const sales = await rows
    .selectFrom('sales')
    .select(['store_id', 'livemode', 'product_id', 'created_at', 'amount_cents', 'payment_method'])
    .where('payment_method', '!=', 'pix')
    .execute();
  for (const sale of sales) {
    const day = localDate(sale.created_at, zones.get(sale.store_id) ?? 'America/Sao_Paulo');
    for (const product_id of [sale.product_id ?? '', '*']) {
      const key = `${sale.store_id}|${sale.livemode}|${day}|${product_id}`;
      const row = others.get(key) ?? { ...sale, day, product_id, sales: 0, cardSales: 0, cardCents: 0 };
      others.set(key, row);
      row.sales += 1;
      if (sale.payment_method === 'card') {
        row.cardSales += 1;
        row.cardCents += sale.amount_cents;
      }
    }
  }
  for (const row of others.values()) {
    // Clamped at 0: a sale made before the daily totals existed was never in them.
    await rows
      .updateTable('analytics_daily')
      .set({
        pix_sales: sql`case when pix_sales > ${row.sales} then pix_sales - ${row.sales} else 0 end`,
        pix_gross_cents: sql`case when pix_gross_cents > ${row.cardCents} then pix_gross_cents - ${row.cardCents} else 0 end`,
        card_sales: row.cardSales,
        card_gross_cents: row.cardCents,
      })
      .where('store_id', '=', row.store_id)
      .where('livemode', '=', row.livemode)
      .where('day', '=', row.day)
      .where('product_id', '=', row.product_id)
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) await db.schema.alterTable('analytics_daily').dropColumn(column).execute();
}
