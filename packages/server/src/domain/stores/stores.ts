import type { Kysely } from 'kysely';
import { reusedQuery } from '../../platform/db/reused-query.js';
import type { Database, DbBool } from '../../platform/db/schema.js';
import { newUuid } from '../../platform/values/ids.js';
import { nowIso } from '../../platform/values/time.js';
import { handleCandidate, handleFromName } from '../../platform/values/handle.js';
import { previousHandlesOfOthers, recordHandleChange, storeOfPreviousHandle } from './previous-handles.js';

/** In which mode the store's purchase pages charge buyers: simulated (`test`) or real (`live`). */
export type CheckoutMode = 'test' | 'live';

export interface StoresTable {
  id: string;
  name: string;
  /** Public, unique: the first segment of the store's purchase pages (`/p/<handle>/<slug>`). */
  handle: string;
  checkout_mode: CheckoutMode;
  pix_key: string | null;
  merchant_name: string | null;
  merchant_city: string | null;
  created_at: string;
  /** IANA time zone the store's days are counted in (analytics); migration 0015. */
  timezone: string;
  /** The abandoned-order e-mail (off by default); a null subject or body is the default wording. */
  recovery_email_enabled: DbBool;
  recovery_email_delay_minutes: number;
  recovery_email_subject: string | null;
  recovery_email_body: string | null;
  /** Meta Conversions API: the pixel, its access token sealed with the secret box (write-only). */
  meta_pixel_id: string | null;
  meta_access_token_sealed: string | null;
  meta_test_event_code: string | null;
  meta_browser_pixel: DbBool;
  /** Card installments (API 1.3.0, migration 0029): the price table's terms; the rate in basis points. */
  card_max_installments: number;
  card_interest_free_installments: number;
  card_monthly_interest_bp: number;
  card_min_installment_cents: number;
}

/** A new store's settings beyond its identity: the database's defaults (migration 0015). */
export const DEFAULT_STORE_SETTINGS = {
  timezone: 'America/Sao_Paulo',
  recovery_email_enabled: 0,
  recovery_email_delay_minutes: 60,
  recovery_email_subject: null,
  recovery_email_body: null,
  meta_pixel_id: null,
  meta_access_token_sealed: null,
  meta_test_event_code: null,
  meta_browser_pixel: 0,
  card_max_installments: 12,
  card_interest_free_installments: 1,
  card_monthly_interest_bp: 299,
  card_min_installment_cents: 500,
} as const;

declare module '../../platform/db/schema.js' {
  interface Tables {
    stores: StoresTable;
  }
}

export interface NewStore {
  name: string;
  /** Default: from the name, with `-2`, `-3`… when another store has it. */
  handle?: string;
  checkoutMode?: CheckoutMode;
  pixKey?: string | null;
  merchantName?: string | null;
  merchantCity?: string | null;
}

export class HandleTakenError extends Error {
  constructor(handle: string) {
    super(`the handle "${handle}" is already used by another store`);
    this.name = 'HandleTakenError';
  }
}

const HANDLE_BATCH = 20;

/** The first of `base`, `base-2`, `base-3`… that no store uses yet. */
async function freeHandle(db: Kysely<Database>, base: string): Promise<string> {
  for (let first = 1; ; first += HANDLE_BATCH) {
    const candidates = Array.from({ length: HANDLE_BATCH }, (_, i) => handleCandidate(base, first + i));
    const rows = await db.selectFrom('stores').select('handle').where('handle', 'in', candidates).execute();
    const taken = new Set([
      ...rows.map((row) => row.handle),
      ...(await previousHandlesOfOthers(db, candidates)),
    ]);
    const free = candidates.find((candidate) => !taken.has(candidate));
    if (free !== undefined) return free;
  }
}

/** Whether another store has `handle`, now or as a previous handle (those stay their store's). */
async function handleTaken(db: Kysely<Database>, handle: string, exceptId?: string): Promise<boolean> {
  let query = db.selectFrom('stores').select('id').where('handle', '=', handle);
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  if ((await query.executeTakeFirst()) !== undefined) return true;
  return (await previousHandlesOfOthers(db, [handle], exceptId)).length > 0;
}

/**
 * Inserts a store in the caller's transaction (flows/create-store.ts adds its default checkout in the
 * same one). A handle asked for and taken is HandleTakenError; a generated one is the first free.
 */
export async function insertStore(trx: Kysely<Database>, input: NewStore): Promise<StoresTable> {
  if (input.handle !== undefined && (await handleTaken(trx, input.handle))) {
    throw new HandleTakenError(input.handle);
  }
  const store: StoresTable = {
    id: newUuid(),
    name: input.name,
    handle: input.handle ?? (await freeHandle(trx, handleFromName(input.name))),
    checkout_mode: input.checkoutMode ?? 'test',
    pix_key: input.pixKey ?? null,
    merchant_name: input.merchantName ?? null,
    merchant_city: input.merchantCity ?? null,
    created_at: nowIso(),
    ...DEFAULT_STORE_SETTINGS,
  };
  await trx.insertInto('stores').values(store).execute();
  return store;
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

const selectStoreByHandle = reusedQuery('select store by handle', (db: Kysely<Database>, handle: string) =>
  db.selectFrom('stores').selectAll().where('handle', '=', handle),
);

export async function findStoreByHandle(
  db: Kysely<Database>,
  handle: string,
): Promise<StoresTable | undefined> {
  return (await selectStoreByHandle(db, handle)).rows[0];
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
  handle?: string;
  checkoutMode?: CheckoutMode;
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
    ...(changes.handle !== undefined && { handle: changes.handle }),
    ...(changes.checkoutMode !== undefined && { checkout_mode: changes.checkoutMode }),
    ...(changes.pixKey !== undefined && { pix_key: changes.pixKey }),
    ...(changes.merchantName !== undefined && { merchant_name: changes.merchantName }),
    ...(changes.merchantCity !== undefined && { merchant_city: changes.merchantCity }),
  };
  if (changes.handle !== undefined && (await handleTaken(db, changes.handle, id))) {
    throw new HandleTakenError(changes.handle);
  }
  if (Object.keys(set).length === 0) return findStore(db, id);
  const write = async (trx: Kysely<Database>) => {
    const before = changes.handle === undefined ? undefined : await findStore(trx, id);
    await trx.updateTable('stores').set(set).where('id', '=', id).execute();
    // The old handle keeps redirecting to the new one (previous-handles.ts), in the same transaction.
    if (before && before.handle !== changes.handle)
      await recordHandleChange(trx, id, before.handle, changes.handle!);
  };
  await (db.isTransaction ? write(db) : db.transaction().execute(write));
  return findStore(db, id);
}

/** The store at `handle`: the store using it now, else the store that used it before (to redirect). */
export async function findStoreByAnyHandle(
  db: Kysely<Database>,
  handle: string,
): Promise<{ store: StoresTable; current: boolean } | undefined> {
  const current = await findStoreByHandle(db, handle);
  if (current) return { store: current, current: true };
  const storeId = await storeOfPreviousHandle(db, handle);
  const store = storeId === undefined ? undefined : await findStore(db, storeId);
  return store && { store, current: false };
}
