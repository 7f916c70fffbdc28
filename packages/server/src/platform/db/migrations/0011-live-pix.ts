import type { Kysely } from 'kysely';

/**
 * Live Pix through a PSP's API Pix: provider settings per store (secrets sealed), the callbacks the
 * PSP posts, the reconciliation schedule of live charges, cancellation, and live refunds on sales.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pix_providers')
    .addColumn('store_id', 'text', (c) => c.primaryKey().references('stores.id'))
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('token_url', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret_sealed', 'text', (c) => c.notNull())
    // The client certificate is public; its private key (PEM or the whole PKCS#12) is sealed.
    .addColumn('certificate_pem', 'text', (c) => c.notNull())
    .addColumn('private_key_sealed', 'text')
    .addColumn('pfx_sealed', 'text')
    .addColumn('passphrase_sealed', 'text')
    .addColumn('ca_pem', 'text')
    .addColumn('certificate_subject', 'text', (c) => c.notNull())
    .addColumn('certificate_not_after', 'text', (c) => c.notNull())
    // sha256 of the 256-bit callback token in the webhook URL registered at the PSP.
    .addColumn('callback_token_hash', 'text', (c) => c.unique())
    .addColumn('webhook_url_masked', 'text')
    .addColumn('webhook_registered_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('pix_callbacks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('txids', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  // Retention prunes callbacks by age.
  await db.schema.createIndex('pix_callbacks_received').on('pix_callbacks').column('received_at').execute();

  // When the reconciler next asks the PSP about a pending live charge (null: nothing left to ask).
  await db.schema.alterTable('pix_charges').addColumn('next_check_at', 'text').execute();
  await db.schema.alterTable('pix_charges').addColumn('canceled_at', 'text').execute();
  await db.schema.createIndex('pix_charges_next_check').on('pix_charges').column('next_check_at').execute();

  await db.schema.alterTable('sales').addColumn('refund_status', 'text').execute();
  await db.schema.alterTable('sales').addColumn('refund_id', 'text').execute();
  await db.schema.alterTable('sales').addColumn('refund_requested_at', 'text').execute();
  await db.schema.alterTable('sales').addColumn('refund_failure_reason', 'text').execute();
  await db.schema.alterTable('sales').addColumn('refund_next_check_at', 'text').execute();
  await db.schema.createIndex('sales_refund_next_check').on('sales').column('refund_next_check_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sales_refund_next_check').execute();
  for (const column of [
    'refund_next_check_at',
    'refund_failure_reason',
    'refund_requested_at',
    'refund_id',
    'refund_status',
  ]) {
    await db.schema.alterTable('sales').dropColumn(column).execute();
  }
  await db.schema.dropIndex('pix_charges_next_check').execute();
  await db.schema.alterTable('pix_charges').dropColumn('canceled_at').execute();
  await db.schema.alterTable('pix_charges').dropColumn('next_check_at').execute();
  await db.schema.dropTable('pix_callbacks').execute();
  await db.schema.dropTable('pix_providers').execute();
}
