import type { Kysely } from 'kysely';

/**
 * Meta Conversions API: `conversion_events` is both the queue and the record of what was sent. A row
 * is queued with its cause (an order placed, a sale approved), leased to one worker at a time while
 * `next_attempt_at` says it is due, and stays once settled (`sent` or `failed`, `next_attempt_at`
 * null) so a sale's page can show what Meta answered, until retention prunes it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('conversion_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('settled_at', 'text')
    .execute();
  // One event per cause, whatever retries or replays happen: Meta de-duplicates on the same id too.
  await db.schema
    .createIndex('conversion_events_cause')
    .on('conversion_events')
    .columns(['store_id', 'event_id', 'kind'])
    .unique()
    .execute();
  // What a worker's claim scans (settled rows have no due time), and what retention walks.
  await db.schema
    .createIndex('conversion_events_due')
    .on('conversion_events')
    .column('next_attempt_at')
    .execute();
  await db.schema.createIndex('conversion_events_age').on('conversion_events').column('created_at').execute();
  // A sale's order: the Purchase event's buyer (IP, user agent, click id) and the sale page's events.
  await db.schema.createIndex('orders_sale').on('orders').columns(['store_id', 'sale_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('orders_sale').execute();
  await db.schema.dropTable('conversion_events').execute();
}
