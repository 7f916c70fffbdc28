import type { Kysely } from 'kysely';

/**
 * Analytics: the daily totals the summary reads (days in the store's `timezone`), kept as page
 * views are flushed and as orders, sales and refunds are written, so a year is read without
 * scanning sales.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('analytics_daily')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    // The local date, YYYY-MM-DD, in the store's time zone when the fact was counted.
    .addColumn('day', 'text', (c) => c.notNull())
    // '' for sales of charges made through the API without a product; '*' for the store's whole day.
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('page_views', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('orders', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('paid_orders', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('sales', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('gross_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('refunded_cents', 'bigint', (c) => c.notNull().defaultTo(0))
    // A summary reads one product's row, or the store's whole-day row ('*'), over a range of days:
    // the key's order, so it reads as many rows as days.
    .addPrimaryKeyConstraint('analytics_daily_pk', ['store_id', 'livemode', 'product_id', 'day'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('analytics_daily').execute();
}
