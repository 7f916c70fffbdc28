import type { Kysely } from 'kysely';
import { createApiKey } from '../api-keys/api-keys.js';
import { SCOPES } from '../api-keys/scopes.js';
import { claimOnce } from '../db/bootstrap-claims.js';
import type { Database } from '../db/schema.js';
import { countStores, createStore } from './stores.js';

/**
 * On a database with no store, the first `serve` creates a Demo store and a test key holding every
 * scope, so a newcomer can make a first request at once. The key is returned to be printed once.
 */
export async function ensureDemoStore(
  db: Kysely<Database>,
): Promise<{ storeId: string; key: string } | null> {
  if ((await countStores(db)) > 0) return null;
  // Several processes starting at once on an empty database all count zero: one claim wins.
  if (!(await claimOnce(db, 'demo_store'))) return null;
  const store = await createStore(db, { name: 'Demo store' });
  const key = await createApiKey(db, { storeId: store.id, mode: 'test', scopes: [...SCOPES] });
  return { storeId: store.id, key: key.key };
}
