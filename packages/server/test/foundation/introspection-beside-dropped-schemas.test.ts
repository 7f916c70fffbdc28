import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/platform/db/migrations/migrate.js';
import { POSTGRES_URL, createTestDatabase } from '../support/test-databases.js';

/**
 * Many test files (and, in production, other applications) share one PostgreSQL database, each in
 * its own schema, and drop their schemas when done. Kysely's stock introspector read every schema
 * and looked each table up again by name, so a schema dropped meanwhile failed a migration run at
 * start-up with "schema … does not exist". Storefront's introspector sees only its search_path.
 */
describe.skipIf(!POSTGRES_URL)(
  `migrations beside schemas other sessions create and drop [postgres${POSTGRES_URL ? '' : ': skipped, STOREFRONT_TEST_DATABASE_URL is not set'}]`,
  () => {
    it('migrates and introspects its own schema while another session churns schemas', async () => {
      const database = await createTestDatabase('postgres');
      const other = new pg.Client({ connectionString: POSTGRES_URL! });
      await other.connect();
      let churning = true;
      let churned = 0;
      const churn = (async () => {
        while (churning) {
          const schema = `sf_churn_${process.pid}_${churned}`;
          await other.query(
            `create schema ${schema}; create table ${schema}.t (id serial primary key, a text, b text)`,
          );
          await other.query(`drop schema ${schema} cascade`);
          churned += 1;
        }
      })();
      try {
        const ownTables = new Set<string>();
        for (let run = 0; run < 40; run += 1) {
          await migrateToLatest(database.db.kysely);
          for (const table of await database.db.kysely.introspection.getTables()) {
            ownTables.add(`${table.schema}.${table.name}`);
          }
        }
        churning = false;
        await churn;
        expect(churned).toBeGreaterThan(0);
        const schemas = new Set([...ownTables].map((name) => name.split('.')[0]));
        expect([...schemas]).toEqual([expect.stringMatching(/^sf_test_/)]);
        expect(ownTables.has([...schemas][0] + '.products')).toBe(true);
      } finally {
        churning = false;
        await churn.catch(() => undefined);
        await other.end();
        await database.drop();
      }
    });

    it('describes its tables as Kysely does: columns, nullability, defaults, auto-increment', async () => {
      const database = await createTestDatabase('postgres');
      try {
        const tables = await database.db.kysely.introspection.getTables();
        expect(tables.map((t) => t.name)).not.toContain('kysely_migration');
        const withInternal = await database.db.kysely.introspection.getTables({
          withInternalKyselyTables: true,
        });
        expect(withInternal.map((t) => t.name)).toContain('kysely_migration');
        const migration = withInternal.find((t) => t.name === 'kysely_migration')!;
        expect(migration.isView).toBe(false);
        expect(migration.columns.map((c) => [c.name, c.dataType, c.isNullable])).toEqual([
          ['name', 'varchar', false],
          ['timestamp', 'varchar', false],
        ]);
        const client = new pg.Client({ connectionString: POSTGRES_URL! });
        await client.connect();
        const schema = database.env.PGOPTIONS!.split('=')[1];
        await client.query(`create table ${schema}.counted (id serial primary key, note text default 'x')`);
        await client.end();
        const counted = (await database.db.kysely.introspection.getTables()).find(
          (t) => t.name === 'counted',
        )!;
        expect(counted.columns).toEqual([
          expect.objectContaining({
            name: 'id',
            isAutoIncrementing: true,
            hasDefaultValue: true,
            isNullable: false,
          }),
          expect.objectContaining({
            name: 'note',
            isAutoIncrementing: false,
            hasDefaultValue: true,
            isNullable: true,
          }),
        ]);
      } finally {
        await database.drop();
      }
    });
  },
);
