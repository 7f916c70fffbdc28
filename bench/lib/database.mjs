// A database of its own for one bench run: a temp SQLite file, or a fresh PostgreSQL schema (placeFor).
// Migrated, with one store and an all-scopes test key made by the server's own functions.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importServerDependency, importServerModule } from './paths.mjs';
import { seedProducts } from './seed.mjs';

/** Runs `work` with a PostgreSQL client of its own, closed afterwards. */
export async function withPgClient(url, work) {
  const pg = await importServerDependency('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function placeFor(kind, pgUrl) {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'storefront-bench-'));
    return {
      dir,
      databaseUrl: `sqlite:${join(dir, 'storefront.sqlite')}`,
      openOptions: {},
      serverEnv: {},
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_${randomBytes(6).toString('hex')}`;
  await withPgClient(pgUrl, (c) => c.query(`CREATE SCHEMA ${schema}`));
  const dir = mkdtempSync(join(tmpdir(), 'storefront-bench-'));
  return {
    dir,
    databaseUrl: pgUrl,
    openOptions: { searchPath: schema },
    // node-postgres reads PGOPTIONS, so the unchanged server works inside the bench schema.
    serverEnv: { PGOPTIONS: `-c search_path=${schema}` },
    cleanup: async () => {
      await withPgClient(pgUrl, (c) => c.query(`DROP SCHEMA ${schema} CASCADE`));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function hasTable(kysely, name) {
  const tables = await kysely.introspection.getTables();
  return tables.some((t) => t.name === name);
}

/** Returns what the server and the scenarios need; `cleanup()` removes the database. */
export async function prepareDatabase({ kind, pgUrl, seedCount }) {
  const { openDatabase } = await importServerModule('platform/db/database.js');
  const { migrateToLatest } = await importServerModule('platform/db/migrations/migrate.js');
  const { createStore } = await importServerModule('flows/create-store.js');
  const { createApiKey } = await importServerModule('platform/api-keys/api-keys.js');
  const { SCOPES } = await importServerModule('platform/api-keys/scopes.js');

  const place = await placeFor(kind, pgUrl);
  try {
    const db = openDatabase(place.databaseUrl, place.openOptions);
    try {
      await migrateToLatest(db.kysely);
      const store = await createStore(db.kysely, { name: 'Loja de Carga' });
      const key = await createApiKey(db.kysely, { storeId: store.id, mode: 'test', scopes: [...SCOPES] });
      const started = Date.now();
      const productIds = (await hasTable(db.kysely, 'products'))
        ? await seedProducts(db, store.id, seedCount)
        : [];
      return {
        kind,
        dir: place.dir,
        databaseUrl: place.databaseUrl,
        openOptions: place.openOptions,
        serverEnv: place.serverEnv,
        storeId: store.id,
        handle: store.handle,
        checkoutId: store.default_checkout_id,
        key: key.key,
        productIds,
        seedMs: Date.now() - started,
        cleanup: place.cleanup,
      };
    } finally {
      await db.close();
    }
  } catch (error) {
    await place.cleanup();
    throw error;
  }
}
