import type { Kysely } from 'kysely';
import { insertDefaultCheckout } from '../checkouts/checkouts-repository.js';
import { reusedQuery } from '../db/reused-query.js';
import type { Database } from '../db/schema.js';
import { newUuid } from '../shared/ids.js';
import { nowIso } from '../shared/time.js';

export interface StoresTable {
  id: string;
  name: string;
  pix_key: string | null;
  merchant_name: string | null;
  merchant_city: string | null;
  created_at: string;
}

declare module '../db/schema.js' {
  interface Tables {
    stores: StoresTable;
  }
}

export interface NewStore {
  name: string;
  pixKey?: string | null;
  merchantName?: string | null;
  merchantCity?: string | null;
}

/** A store is born with its default checkout, in one transaction: it always has exactly one. */
export async function createStore(
  db: Kysely<Database>,
  input: NewStore,
): Promise<{ id: string; name: string; default_checkout_id: string }> {
  return db.transaction().execute(async (trx) => {
    const store: StoresTable = {
      id: newUuid(),
      name: input.name,
      pix_key: input.pixKey ?? null,
      merchant_name: input.merchantName ?? null,
      merchant_city: input.merchantCity ?? null,
      created_at: nowIso(),
    };
    await trx.insertInto('stores').values(store).execute();
    const checkout = await insertDefaultCheckout(trx, store.id);
    return { id: store.id, name: store.name, default_checkout_id: checkout.id };
  });
}

export function listStores(db: Kysely<Database>): Promise<StoresTable[]> {
  return db.selectFrom('stores').selectAll().orderBy('created_at', 'asc').execute();
}

const selectStore = reusedQuery('select store', (db: Kysely<Database>, id: string) =>
  db.selectFrom('stores').selectAll().where('id', '=', id),
);

export async function findStore(db: Kysely<Database>, id: string): Promise<StoresTable | undefined> {
  return (await selectStore(db, id)).rows[0];
}

export async function countStores(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('stores')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface StoreChanges {
  name?: string;
  pixKey?: string;
  merchantName?: string;
  merchantCity?: string;
}

/** Changes only what is given; returns the updated store, or undefined when there is no such store. */
export async function updateStore(
  db: Kysely<Database>,
  id: string,
  changes: StoreChanges,
): Promise<StoresTable | undefined> {
  const set: Partial<StoresTable> = {
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.pixKey !== undefined && { pix_key: changes.pixKey }),
    ...(changes.merchantName !== undefined && { merchant_name: changes.merchantName }),
    ...(changes.merchantCity !== undefined && { merchant_city: changes.merchantCity }),
  };
  if (Object.keys(set).length > 0) await db.updateTable('stores').set(set).where('id', '=', id).execute();
  return findStore(db, id);
}
