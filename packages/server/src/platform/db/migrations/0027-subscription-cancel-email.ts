import type { Kysely } from 'kysely';

/**
 * The buyer's e-mail when the store cancels their subscription: where it stands on the subscription
 * (status, when sent, the last error), and its queue, one job per subscription (the e-mail worker's
 * shape: due at `next_attempt_at`, leased, deleted once settled).
 */
const COLUMNS = ['cancel_email_status', 'cancel_email_sent_at', 'cancel_email_last_error'];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of COLUMNS) {
    await db.schema.alterTable('subscriptions').addColumn(column, 'text').execute();
  }
  await db.schema
    .createTable('subscription_email_jobs')
    .addColumn('subscription_id', 'text', (c) => c.primaryKey().references('subscriptions.id'))
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('subscription_email_jobs_due')
    .on('subscription_email_jobs')
    .column('next_attempt_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('subscription_email_jobs').execute();
  for (const column of [...COLUMNS].reverse()) {
    await db.schema.alterTable('subscriptions').dropColumn(column).execute();
  }
}
