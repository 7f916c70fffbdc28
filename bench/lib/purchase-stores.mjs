// More test-mode stores in a bench's database, each with an all-scopes key, made by the server's own
// functions as bench/lib/database.mjs makes the first: purchases spread over several stores.
import { importServerModule } from './paths.mjs';

/** `count - 1` stores more than `database`'s own; returns all `count` as { handle, key }. */
export async function purchaseStores(database, count) {
  const { openDatabase } = await importServerModule('platform/db/database.js');
  const { createStore } = await importServerModule('flows/create-store.js');
  const { createApiKey } = await importServerModule('platform/api-keys/api-keys.js');
  const { SCOPES } = await importServerModule('platform/api-keys/scopes.js');
  const stores = [{ handle: database.handle, key: database.key }];
  if (count <= 1) return stores;
  const db = openDatabase(database.databaseUrl, database.openOptions);
  try {
    for (let i = 1; i < count; i++) {
      const store = await createStore(db.kysely, { name: `Loja de Carga ${i}` });
      const key = await createApiKey(db.kysely, { storeId: store.id, mode: 'test', scopes: [...SCOPES] });
      stores.push({ handle: store.handle, key: key.key });
    }
  } finally {
    await db.close();
  }
  return stores;
}
