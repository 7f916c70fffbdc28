import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pix_charges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('external_id', 'text')
    .addColumn('customer', 'text')
    .addColumn('metadata', 'text')
    .addColumn('txid', 'text', (c) => c.notNull().unique())
    .addColumn('copy_paste', 'text', (c) => c.notNull())
    .addColumn('qr_code_base64', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('pix_charges_listing')
    .on('pix_charges')
    .columns(['store_id', 'livemode', 'created_at', 'id'])
    .execute();
  // One charge per external_id per store and mode: the database settles concurrent creates.
  // NULLs are distinct on both engines, so charges without an external_id never collide.
  await db.schema
    .createIndex('pix_charges_external_id')
    .on('pix_charges')
    .columns(['store_id', 'livemode', 'external_id'])
    .unique()
    .execute();
  // What the expiry sweeper scans: pending charges by due time.
  await db.schema
    .createIndex('pix_charges_due')
    .on('pix_charges')
    .columns(['status', 'expires_at'])
    .execute();

  await db.schema
    .createTable('sales')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('payment_method', 'text', (c) => c.notNull())
    // A charge is paid once, so it makes at most one sale.
    .addColumn('pix_charge_id', 'text', (c) => c.unique().references('pix_charges.id'))
    .addColumn('pix_end_to_end_id', 'text')
    .addColumn('product_id', 'text')
    .addColumn('customer', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('refunded_at', 'text')
    .execute();
  await db.schema
    .createIndex('sales_listing')
    .on('sales')
    .columns(['store_id', 'livemode', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sales').execute();
  await db.schema.dropTable('pix_charges').execute();
}
