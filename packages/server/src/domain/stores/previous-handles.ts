import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { nowIso } from '../../platform/values/time.js';

/*
 * A store's previous handles (migration 0028). Links a seller shared keep working after a handle
 * change: `/p/<old>/<slug>` answers with a permanent redirect to the current handle. A previous
 * handle stays the store's: no other store can take it (a buyer following an old link never lands on
 * someone else's page), and the store itself can take it back.
 */
export interface StorePreviousHandlesTable {
  handle: string;
  store_id: string;
  replaced_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    store_previous_handles: StorePreviousHandlesTable;
  }
}

/** The store that had `handle` before, or undefined. */
export async function storeOfPreviousHandle(
  db: Kysely<Database>,
  handle: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('store_previous_handles')
    .select('store_id')
    .where('handle', '=', handle)
    .executeTakeFirst();
  return row?.store_id;
}

/** Which of `handles` are a previous handle of a store other than `exceptId`. */
export async function previousHandlesOfOthers(
  db: Kysely<Database>,
  handles: string[],
  exceptId?: string,
): Promise<string[]> {
  let query = db.selectFrom('store_previous_handles').select('handle').where('handle', 'in', handles);
  if (exceptId !== undefined) query = query.where('store_id', '<>', exceptId);
  return (await query.execute()).map((row) => row.handle);
}

/**
 * The store moves from `from` to `to`: `from` becomes a previous handle, and `to` (when the store is
 * taking one of its previous handles back) is current again. Run in the change's transaction.
 */
export async function recordHandleChange(
  trx: Kysely<Database>,
  storeId: string,
  from: string,
  to: string,
): Promise<void> {
  await trx
    .deleteFrom('store_previous_handles')
    .where('store_id', '=', storeId)
    .where('handle', '=', to)
    .execute();
  await trx
    .insertInto('store_previous_handles')
    .values({ handle: from, store_id: storeId, replaced_at: nowIso() })
    .onConflict((oc) => oc.column('handle').doNothing())
    .execute();
}
