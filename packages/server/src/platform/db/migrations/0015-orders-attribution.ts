import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Orders as an API resource (API 1.2.0): campaign attribution (`tracking`) on orders, charges and
 * sales; abandonment and recovery of unpaid orders with their e-mail; the store's own settings
 * (timezone, the abandoned-order e-mail, Meta conversions with its access token sealed).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // `{}` for rows made before attribution existed: they carried no campaign parameters.
  for (const table of ['orders', 'pix_charges', 'sales']) {
    await db.schema
      .alterTable(table)
      .addColumn('tracking', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
  }

  await db.schema.alterTable('orders').addColumn('paid_at', 'text').execute();
  await db.schema.alterTable('orders').addColumn('abandoned_at', 'text').execute();
  await db.schema
    .alterTable('orders')
    .addColumn('recovered', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // The order page's token sealed with the secret box: events and the recovery e-mail link to the
  // page long after the buyer's request. Null for orders placed before, which get no link.
  await db.schema.alterTable('orders').addColumn('token_sealed', 'text').execute();
  await db.schema.alterTable('orders').addColumn('recovery_email_status', 'text').execute();
  await db.schema.alterTable('orders').addColumn('recovery_email_sent_at', 'text').execute();
  await db.schema.alterTable('orders').addColumn('recovery_email_last_error', 'text').execute();
  // Who placed it, as the server saw the request: for server-side conversion events.
  await db.schema.alterTable('orders').addColumn('client_ip', 'text').execute();
  await db.schema.alterTable('orders').addColumn('user_agent', 'text').execute();
  // Orders placed before: a paid one was paid when its sale was made; one whose Pix the store canceled
  // is `canceled`, as the API now says (and the abandonment sweep leaves it alone).
  await sql`update orders set paid_at = (select created_at from sales where sales.id = orders.sale_id) where status = 'paid'`.execute(
    db,
  );
  await sql`update orders set status = 'canceled' where status = 'pending' and pix_charge_id in (select id from pix_charges where status = 'canceled')`.execute(
    db,
  );
  await db.schema
    .alterTable('sales')
    .addColumn('recovered', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // The API listing (per store and mode, newest first) and the abandonment sweep (pending by age).
  await db.schema
    .createIndex('orders_store_listing')
    .on('orders')
    .columns(['store_id', 'livemode', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('orders_pending_age')
    .on('orders')
    .column('created_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();

  await db.schema
    .alterTable('stores')
    .addColumn('timezone', 'text', (c) => c.notNull().defaultTo('America/Sao_Paulo'))
    .execute();
  await db.schema
    .alterTable('stores')
    .addColumn('recovery_email_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable('stores')
    .addColumn('recovery_email_delay_minutes', 'integer', (c) => c.notNull().defaultTo(60))
    .execute();
  // Null: the default wording.
  await db.schema.alterTable('stores').addColumn('recovery_email_subject', 'text').execute();
  await db.schema.alterTable('stores').addColumn('recovery_email_body', 'text').execute();
  await db.schema.alterTable('stores').addColumn('meta_pixel_id', 'text').execute();
  await db.schema.alterTable('stores').addColumn('meta_access_token_sealed', 'text').execute();
  await db.schema.alterTable('stores').addColumn('meta_test_event_code', 'text').execute();
  await db.schema
    .alterTable('stores')
    .addColumn('meta_browser_pixel', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  // The recovery e-mail's queue, shaped like the delivery e-mail's: one row per order with an
  // e-mail still to send (due at abandonment + the store's delay), deleted once settled.
  await db.schema
    .createTable('recovery_email_jobs')
    .addColumn('order_id', 'text', (c) => c.primaryKey().references('orders.id'))
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('recovery_email_jobs_due')
    .on('recovery_email_jobs')
    .column('next_attempt_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('recovery_email_jobs').execute();
  for (const column of [
    'meta_browser_pixel',
    'meta_test_event_code',
    'meta_access_token_sealed',
    'meta_pixel_id',
    'recovery_email_body',
    'recovery_email_subject',
    'recovery_email_delay_minutes',
    'recovery_email_enabled',
    'timezone',
  ])
    await db.schema.alterTable('stores').dropColumn(column).execute();
  await db.schema.dropIndex('orders_pending_age').execute();
  await db.schema.dropIndex('orders_store_listing').execute();
  await db.schema.alterTable('sales').dropColumn('recovered').execute();
  for (const column of [
    'user_agent',
    'client_ip',
    'recovery_email_last_error',
    'recovery_email_sent_at',
    'recovery_email_status',
    'token_sealed',
    'recovered',
    'abandoned_at',
    'paid_at',
  ])
    await db.schema.alterTable('orders').dropColumn(column).execute();
  for (const table of ['sales', 'pix_charges', 'orders'])
    await db.schema.alterTable(table).dropColumn('tracking').execute();
}
