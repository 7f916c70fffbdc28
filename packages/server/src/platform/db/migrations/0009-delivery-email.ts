import type { Kysely } from 'kysely';

/**
 * The delivery e-mail: its visible state lives on the sale (so every read of a sale has it), the work
 * lives in `email_jobs`, one row per sale with an e-mail still to send, deleted once it is settled.
 * A Pix charge may name the product it sells, which its sale then carries.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sales').addColumn('delivery_email_status', 'text').execute();
  await db.schema
    .alterTable('sales')
    .addColumn('delivery_email_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('sales').addColumn('delivery_email_sent_at', 'text').execute();
  await db.schema.alterTable('sales').addColumn('delivery_email_last_error', 'text').execute();
  await db.schema.alterTable('pix_charges').addColumn('product_id', 'text').execute();

  await db.schema
    .createTable('email_jobs')
    .addColumn('sale_id', 'text', (c) => c.primaryKey().references('sales.id'))
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // What a worker's claim scans: jobs by due time.
  await db.schema.createIndex('email_jobs_due').on('email_jobs').column('next_attempt_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('email_jobs').execute();
  await db.schema.alterTable('pix_charges').dropColumn('product_id').execute();
  for (const column of ['last_error', 'sent_at', 'attempts', 'status'])
    await db.schema.alterTable('sales').dropColumn(`delivery_email_${column}`).execute();
}
