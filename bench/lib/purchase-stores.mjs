// More test-mode stores in a bench's database, each with an all-scopes key, made by the server's own
// functions as bench/lib/database.mjs makes the first: purchases spread over several stores.
import { randomBytes } from 'node:crypto';
import { requestJson } from './http.mjs';
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

/**
 * A product of the store (`handle`, `key`) made through the API on `server`, as a merchant makes one
 * (a name of its own each time: a server restarted on the same database makes another); its page.
 */
export async function productPagePath(server, { handle, key }) {
  const product = await requestJson(`${server.api}/products`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      nome: `Curso de Violão ${randomBytes(3).toString('hex')}`,
      preco: 97,
      link_acesso: 'https://members.example.com/violao',
    }),
  });
  return `/p/${handle}/${product.slug}`;
}
