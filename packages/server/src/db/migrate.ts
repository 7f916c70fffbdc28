import { Migrator } from 'kysely';
import type { Kysely, MigrationResultSet } from 'kysely';
import { migrations } from './migrations/index.js';

/** Applies every pending migration; the same set runs on SQLite and PostgreSQL. */
export async function migrateToLatest<DB>(kysely: Kysely<DB>): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db: kysely as Kysely<unknown>,
    provider: { getMigrations: async () => migrations },
  });
  const result = await migrator.migrateToLatest();
  if (result.error) throw result.error;
  return result;
}
