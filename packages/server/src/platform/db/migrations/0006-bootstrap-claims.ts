import type { Kysely } from 'kysely';

/**
 * One row per one-time start-up task (the Demo store of a fresh database): the primary key lets
 * exactly one of several processes started at once claim it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('bootstrap_claims')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('claimed_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('bootstrap_claims').execute();
}
