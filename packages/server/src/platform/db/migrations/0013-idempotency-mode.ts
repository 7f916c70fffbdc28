import { sql } from 'kysely';
import type { CreateTableBuilder, Kysely } from 'kysely';

/**
 * Idempotency keys belong to a store's mode: a key used with a test key and the same key used with a
 * live key are two keys, so a replay never crosses modes. The primary key changes, which SQLite
 * cannot alter: the table is rebuilt. Keys kept before this migration do not know their mode; they are
 * kept as mode `unknown` until they expire (24 hours), and a request meeting one is refused rather than
 * replayed in the wrong mode or run a second time.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await createKeysTable(db, 'idempotency_keys_by_mode', true);
  await sql`insert into idempotency_keys_by_mode
      (store_id, mode, key, fingerprint, state, response_status, response_body, created_at, expires_at)
    select store_id, 'unknown', key, fingerprint, state, response_status, response_body, created_at, expires_at
    from idempotency_keys`.execute(db);
  await db.schema.dropTable('idempotency_keys').execute();
  await db.schema.alterTable('idempotency_keys_by_mode').renameTo('idempotency_keys').execute();
  await indexExpiry(db);
}

/** Back to one key per store: keys are dropped (they last a day), as two modes' rows cannot merge. */
export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('idempotency_keys').execute();
  await createKeysTable(db, 'idempotency_keys', false);
  await indexExpiry(db);
}

/** The table with or without its mode column (in the primary key), as after and before this migration. */
async function createKeysTable(db: Kysely<unknown>, name: string, withMode: boolean): Promise<void> {
  // Typed loosely: which columns the primary key may name depends on `withMode`.
  let table: CreateTableBuilder<string, string> = db.schema
    .createTable(name)
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'));
  if (withMode) table = table.addColumn('mode', 'text', (c) => c.notNull());
  await table
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint(
      withMode ? 'idempotency_keys_mode_pk' : 'idempotency_keys_pk',
      withMode ? ['store_id', 'mode', 'key'] : ['store_id', 'key'],
    )
    .execute();
}

const indexExpiry = (db: Kysely<unknown>) =>
  db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
