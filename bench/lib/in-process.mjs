// For benches that measure the service's own cost in this process (Fastify's inject, no sockets): the
// built server's modules (STOREFRONT_DIST=<dir>/ to use another build), a fresh SQLite file with one
// store and a key, and a configuration for buildApp.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dist = new URL(process.env.STOREFRONT_DIST ?? '../../packages/server/dist/', import.meta.url);

/** A module of the build under test, e.g. `channels/server/app.js`. */
export const loadBuilt = (path) => import(new URL(path, dist).href);

export async function openBenchStore({ scopes }) {
  const { loadConfig } = await loadBuilt('platform/config/config.js');
  const { openDatabase } = await loadBuilt('platform/db/database.js');
  const { migrateToLatest } = await loadBuilt('platform/db/migrations/migrate.js');
  const { createStore } = await loadBuilt('flows/create-store.js');
  const { createApiKey } = await loadBuilt('platform/api-keys/api-keys.js');
  const dir = mkdtempSync(join(tmpdir(), 'sf-bench-'));
  const url = `sqlite:${join(dir, 'bench.sqlite')}`;
  const db = openDatabase(url);
  await migrateToLatest(db.kysely);
  const config = loadConfig({
    DATABASE_URL: url,
    STOREFRONT_SECRET: 'bench-secret-bench-secret-bench-secret',
    STOREFRONT_RATE_LIMIT: '1000000',
  });
  const store = await createStore(db.kysely, { name: 'Padaria São João' });
  const { key } = await createApiKey(db.kysely, { storeId: store.id, mode: 'test', scopes });
  return {
    db,
    config,
    key,
    async close() {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
