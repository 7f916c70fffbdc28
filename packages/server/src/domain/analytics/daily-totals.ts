import type { Generated, Kysely } from 'kysely';
import { reusedQuery } from '../../platform/db/reused-query.js';
import { counterSlot } from '../../platform/db/row-locks.js';
import type { Database, DbBool } from '../../platform/db/schema.js';
import { localDate } from '../../platform/values/local-date.js';
import { storeTimezone } from '../kernel/store-timezone.js';

/**
 * Rows per (store, mode, local day, product), and per store's whole day: counters that only ever
 * grow by what happened, added in the transaction of the write they count, so the summary of a year
 * reads a few rows a day instead of the sales themselves. A day's figures are the sum of its rows'
 * `slot`s: on PostgreSQL concurrent writers add to different slots (`counterSlot`), so one store's
 * purchases do not wait on one row's lock; on SQLite there is only slot 0. Counts are bigint:
 * PostgreSQL returns them as strings, SQLite as numbers.
 */
export interface AnalyticsDailyTable {
  store_id: string;
  livemode: DbBool;
  day: string;
  /** '' for sales of charges made through the API without a product; ALL_PRODUCTS for the store's day. */
  product_id: string;
  page_views: number | string;
  orders: number | string;
  paid_orders: number | string;
  sales: number | string;
  gross_cents: number | string;
  refunded_cents: number | string;
  /** Of `sales` and `gross_cents`, those paid by Pix and by card (migration 0030); free sales in neither. */
  pix_sales: number | string;
  pix_gross_cents: number | string;
  card_sales: number | string;
  card_gross_cents: number | string;
  /** Which of the day's rows (0 to COUNTER_SLOTS - 1); written by the database, from the connection. */
  slot: Generated<number>;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    analytics_daily: AnalyticsDailyTable;
  }
}

/** The product of the row that sums all of a store's day, every product's and none's (never a UUID). */
export const ALL_PRODUCTS = '*';

export const COUNTERS = [
  'page_views',
  'orders',
  'paid_orders',
  'sales',
  'gross_cents',
  'refunded_cents',
  'pix_sales',
  'pix_gross_cents',
  'card_sales',
  'card_gross_cents',
] as const;

export type Counter = (typeof COUNTERS)[number];

export interface DailyIncrement {
  store_id: string;
  livemode: DbBool;
  day: string;
  product_id: string;
  add: Partial<Record<Counter, number>>;
}

/**
 * Adds to the day's counters, of each product and of the store's whole day, in this connection's
 * slot, creating the rows that do not exist yet (`ON CONFLICT … DO UPDATE SET n = n + excluded.n`,
 * the same on both databases), so writers in several processes and nodes never overwrite each other.
 * Increments of one row are summed first, and rows go in key order: two writers lock the rows they
 * share in the same order.
 */
export async function addToDailyTotals(
  db: Kysely<Database>,
  increments: readonly DailyIncrement[],
): Promise<void> {
  const rows = new Map<string, DailyRow>();
  for (const increment of increments) {
    for (const product_id of [increment.product_id, ALL_PRODUCTS]) {
      const { store_id, livemode, day } = increment;
      const key = `${store_id}|${livemode}|${day}|${product_id}`;
      let row = rows.get(key);
      if (!row) {
        const zero = Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Record<Counter, number>;
        rows.set(key, (row = { store_id, livemode, day, product_id, ...zero }));
      }
      for (const c of COUNTERS) row[c] += increment.add[c] ?? 0;
    }
  }
  if (rows.size === 0) return;
  const sorted = [...rows.keys()].sort().map((key) => rows.get(key)!);
  if (sorted.length > REUSED_UP_TO) return void (await upsertQuery(db, sorted).execute());
  await upsertOf(sorted.length)(db, ...sorted.flatMap((row) => COLUMNS.map((column) => row[column])));
}

/** What tells a day's rows of one store, mode and product apart from the others, but for their slot. */
export const DAY_KEY = ['store_id', 'livemode', 'day', 'product_id'] as const;

const COLUMNS = [...DAY_KEY, ...COUNTERS] as const;

type DailyRow = Omit<AnalyticsDailyTable, 'slot'> & Record<Counter, number>;

function upsertQuery(db: Kysely<Database>, rows: readonly Omit<AnalyticsDailyTable, 'slot'>[]) {
  const slot = counterSlot(db);
  return db
    .insertInto('analytics_daily')
    .values(rows.map((row) => ({ ...row, slot })))
    .onConflict((conflict) =>
      conflict
        .columns([...DAY_KEY, 'slot'])
        .doUpdateSet((eb) =>
          Object.fromEntries(
            COUNTERS.map((c) => [c, eb(eb.ref(`analytics_daily.${c}`), '+', eb.ref(`excluded.${c}`))]),
          ),
        ),
    );
}

/**
 * A sale or an order adds two rows (its product's and the store's day): upserts of a few rows, the
 * purchase path's, are compiled once per row count; a page views flush of many rows is built each time.
 */
const REUSED_UP_TO = 4;

type Upsert = (db: Kysely<Database>, ...values: unknown[]) => Promise<unknown>;

const upserts = new Map<number, Upsert>();

function upsertOf(count: number): Upsert {
  let upsert = upserts.get(count);
  if (!upsert) {
    upsert = reusedQuery(`add to daily totals x${count}`, (db: Kysely<Database>, ...values: unknown[]) =>
      upsertQuery(
        db,
        Array.from(
          { length: count },
          (_, r) =>
            Object.fromEntries(
              COLUMNS.map((column, c) => [column, values[r * COLUMNS.length + c]]),
            ) as unknown as DailyRow,
        ),
      ),
    );
    upserts.set(count, upsert);
  }
  return upsert;
}

/** What a counted fact says about itself: whose, which mode, which product, and when. */
interface Fact {
  store_id: string;
  livemode: DbBool;
  product_id: string | null;
}

/** One fact's counters, on the local day of `at` in its store's time zone, in the caller's transaction. */
async function count(
  trx: Kysely<Database>,
  fact: Fact,
  at: string,
  add: Partial<Record<Counter, number>>,
): Promise<void> {
  const day = localDate(at, await storeTimezone(trx, fact.store_id));
  await addToDailyTotals(trx, [
    { store_id: fact.store_id, livemode: fact.livemode, day, product_id: fact.product_id ?? '', add },
  ]);
}

/** An order placed on its page counts on its creation day; `-1` takes back one that never stood. */
export function countOrder(
  trx: Kysely<Database>,
  order: Fact & { created_at: string },
  delta: 1 | -1 = 1,
): Promise<void> {
  return count(trx, order, order.created_at, { orders: delta });
}

/**
 * An approved sale counts on its payment day with its amount, and again under its payment method (a
 * card sale's amount is the goods' price, without the buyer's interest; a free one is in neither); a
 * sale that completes a purchase-page order (it has the order's items) is also a paid order.
 */
export function countSale(
  trx: Kysely<Database>,
  sale: Fact & {
    created_at: string;
    amount_cents: number;
    items: string | null;
    payment_method: 'pix' | 'card' | 'free';
  },
): Promise<void> {
  const method = sale.payment_method === 'free' ? {} : byMethod(sale.payment_method, sale.amount_cents);
  return count(trx, sale, sale.created_at, {
    sales: 1,
    paid_orders: sale.items === null ? 0 : 1,
    gross_cents: sale.amount_cents,
    ...method,
  });
}

function byMethod(method: 'pix' | 'card', cents: number): Partial<Record<Counter, number>> {
  return method === 'pix'
    ? { pix_sales: 1, pix_gross_cents: cents }
    : { card_sales: 1, card_gross_cents: cents };
}

/**
 * A refund counts its amount on the refund's day; the sale still counts as made on its own. A
 * chargeback takes the money back the same way, so it counts here too.
 */
export function countRefund(
  trx: Kysely<Database>,
  sale: Fact & { amount_cents: number },
  refundedAt: string,
): Promise<void> {
  return count(trx, sale, refundedAt, { refunded_cents: sale.amount_cents });
}
