import { Migrator, sql } from 'kysely';
import type { Kysely, MigrationResultSet } from 'kysely';
import { migrations } from './migrations/index.js';

/**
 * On PostgreSQL, Kysely looks for its bookkeeping tables in every schema unless told which one; with
 * several schemas in one database (tests, or tenants) it would find another schema's lock table.
 */
async function currentSchema(db: Kysely<unknown>): Promise<string | undefined> {
  try {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema;
  } catch {
    return undefined; // SQLite has no schemas
  }
}

/** Applies every pending migration; the same set runs on SQLite and PostgreSQL. */
export async function migrateToLatest<DB>(kysely: Kysely<DB>): Promise<MigrationResultSet> {
  const db = kysely as Kysely<unknown>;
  const schema = await currentSchema(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
