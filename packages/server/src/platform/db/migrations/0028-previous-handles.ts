import type { Kysely } from 'kysely';

/**
 * A store's previous handles: a handle it gave up keeps answering its purchase pages with a permanent
 * redirect to the current one, and stays the store's (the primary key: no other store can take it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('store_previous_handles')
    .addColumn('handle', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('replaced_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('store_previous_handles_store')
    .on('store_previous_handles')
    .column('store_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('store_previous_handles').execute();
}
