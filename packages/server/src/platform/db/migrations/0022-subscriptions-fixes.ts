import type { Kysely } from 'kysely';

/**
 * A live subscription's creation takes several PSP calls (locrec, cob, rec, the composite code). Each
 * step the PSP answered is written here before the next, so a creation retried after a failure (the
 * same Idempotency-Key, or the purchase page sending the same order again) resumes with what the PSP
 * already holds instead of making a second authorisation. Rows are transient: retention prunes them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('subscription_creations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    // A digest of the request (with its Idempotency-Key, or the page's order): a retry finds its row.
    .addColumn('retry_key', 'text', (c) => c.notNull())
    // Fixed on the first try, so every retry names the same contract and first charge at the PSP.
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('charge_id', 'text', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    // What the PSP answered so far: the locrec (POST /locrec) and the authorisation (POST /rec).
    .addColumn('loc_id', 'integer')
    .addColumn('loc_location', 'text')
    .addColumn('id_rec', 'text')
    .addColumn('completed_at', 'text')
    // One try at a time: a concurrent one with the same key waits for this lease.
    .addColumn('claimed_until', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('subscription_creations_retry_key', ['store_id', 'livemode', 'retry_key'])
    .execute();
  await db.schema
    .createIndex('subscription_creations_created')
    .on('subscription_creations')
    .column('created_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('subscription_creations').execute();
}
