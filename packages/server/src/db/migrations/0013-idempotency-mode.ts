import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Idempotency keys belong to a store's mode: a key used with a test key and the same key used with a
 * live key are two keys, so a replay never crosses modes. The primary key changes, which SQLite
 * cannot alter: the table is rebuilt. Keys kept before this migration do not know their mode; they are
 * kept as mode `unknown` until they expire (24 hours), and a request meeting one is refused rather than
 * replayed in the wrong mode or run a second time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('idempotency_keys_by_mode')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_mode_pk', ['store_id', 'mode', 'key'])
    .execute();
  await sql`insert into idempotency_keys_by_mode
      (store_id, mode, key, fingerprint, state, response_status, response_body, created_at, expires_at)
    select store_id, 'unknown', key, fingerprint, state, response_status, response_body, created_at, expires_at
    from idempotency_keys`.execute(db);
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.alterTable('idempotency_keys_by_mode').renameTo('idempotency_keys').execute();
  await db.schema
    .createIndex('idempotency_keys_expiry')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();
}

/** Back to one key per store: keys are dropped (they last a day), as two modes' rows cannot merge. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['store_id', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_expiry')
    .on('idempotency_keys')
    .column('expires_at')
    .execute();
}
