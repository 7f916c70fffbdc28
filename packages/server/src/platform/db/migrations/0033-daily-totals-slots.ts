import { sql } from 'kysely';
import type { CreateTableBuilder, Kysely } from 'kysely';

/**
 * A day's totals may be split into several rows, told apart by `slot` (0 to 15), which readers sum.
 * Every purchase of a store adds to the store's day row; on PostgreSQL each transaction held that
 * row's lock from its increment to its commit, so one store's purchases, in every process, waited on
 * one another there. Writers now add to the slot of their connection (platform/db/row-locks.ts). The
 * primary key changes, which SQLite cannot alter: the table is rebuilt, its rows kept as slot 0.
 */
const KEY = ['store_id', 'livemode', 'product_id', 'day'] as const;
/** The counters as of this migration, spelled out: a migration must not change when the domain's list does. */
const COUNTERS = [
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

export async function up(db: Kysely<unknown>): Promise<void> {
  await createTotalsTable(db, 'analytics_daily_slots', true);
  await sql`insert into analytics_daily_slots (${sql.join([...KEY, ...COUNTERS].map((c) => sql.ref(c)))}, slot)
    select ${sql.join([...KEY, ...COUNTERS].map((c) => sql.ref(c)))}, 0 from analytics_daily`.execute(db);
  await db.schema.dropTable('analytics_daily').execute();
  await db.schema.alterTable('analytics_daily_slots').renameTo('analytics_daily').execute();
}

/** One row a day again: the slots of each day summed. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await createTotalsTable(db, 'analytics_daily_whole', false);
  await sql`insert into analytics_daily_whole (${sql.join([...KEY, ...COUNTERS].map((c) => sql.ref(c)))})
    select ${sql.join(KEY.map((c) => sql.ref(c)))}, ${sql.join(COUNTERS.map((c) => sql`sum(${sql.ref(c)})`))}
    from analytics_daily group by ${sql.join(KEY.map((c) => sql.ref(c)))}`.execute(db);
  await db.schema.dropTable('analytics_daily').execute();
  await db.schema.alterTable('analytics_daily_whole').renameTo('analytics_daily').execute();
}

/** The table as migrations 0016 and 0030 left it, with or without `slot` as the key's last column. */
async function createTotalsTable(db: Kysely<unknown>, name: string, withSlot: boolean): Promise<void> {
  // Typed loosely: which columns the primary key may name depends on `withSlot`.
  let table: CreateTableBuilder<string, string> = db.schema
    .createTable(name)
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull());
  for (const counter of COUNTERS) table = table.addColumn(counter, 'bigint', (c) => c.notNull().defaultTo(0));
  if (withSlot) table = table.addColumn('slot', 'integer', (c) => c.notNull().defaultTo(0));
  // A summary reads one product's rows, or the store's whole-day rows ('*'), over a range of days:
  // the key's order, so it reads as many rows as days (times the slots written that day).
  await table
    .addPrimaryKeyConstraint(
      withSlot ? 'analytics_daily_slot_pk' : 'analytics_daily_pk',
      withSlot ? [...KEY, 'slot'] : [...KEY],
    )
    .execute();
}
