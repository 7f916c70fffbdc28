import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Migration } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/platform/db/database.js';
import type { Db, DialectName } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrations/migrate.js';
import { randomBase62 } from '../../src/platform/values/ids.js';

export const POSTGRES_URL = process.env.STOREFRONT_TEST_DATABASE_URL || null;

export interface TestDatabase {
  dialect: DialectName;
  db: Db;
  /** The URL to hand to a child process (a worker, the CLI) so it sees the same data. */
  url: string;
  /** Extra environment a child process needs to see the same schema. */
  env: Record<string, string>;
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database of its own: a temp SQLite file, or a PostgreSQL schema of its own.
 * `migrations` (tests of a migration) makes the database of an older release.
 */
export async function createTestDatabase(
  dialect: DialectName,
  migrations?: Record<string, Migration>,
): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'storefront-test-'));
    const url = `sqlite:${join(dir, 'test.sqlite')}`;
    const db = openDatabase(url);
    await migrateToLatest(db.kysely, migrations);
    return {
      dialect,
      db,
      url,
      env: {},
      async drop() {
        await db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!POSTGRES_URL) throw new Error('STOREFRONT_TEST_DATABASE_URL is not set');
  const schema = `sf_test_${randomBase62(12).toLowerCase()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const db = openDatabase(POSTGRES_URL, { searchPath: schema });
  await migrateToLatest(db.kysely, migrations);
  return {
    dialect,
    db,
    url: POSTGRES_URL,
    env: { PGOPTIONS: `-c search_path=${schema}` },
    async drop() {
      await db.close();
      const client = new pg.Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`drop schema ${schema} cascade`);
      await client.end();
    },
  };
}
