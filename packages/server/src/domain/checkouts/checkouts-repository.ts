import type { Kysely } from 'kysely';
import { planConstant } from '../../platform/db/plan-constant.js';
import { reusedQuery } from '../../platform/db/reused-query.js';
import type { Database } from '../../platform/db/schema.js';
import { newUuid } from '../../platform/values/ids.js';
import { nowIso } from '../../platform/values/time.js';
import type { CheckoutsTable } from './checkout-object.js';
import { DEFAULT_CHECKOUT_SETTINGS } from './settings.js';
import type { CheckoutSettings } from './settings.js';

/** Every query here is scoped by store: another store's checkout simply does not exist. */
export function findCheckout(db: Kysely<Database>, storeId: string, id: string) {
  return db
    .selectFrom('checkouts')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

const selectDefaultCheckout = reusedQuery(
  'select default checkout',
  (db: Kysely<Database>, storeId: string) =>
    db
      .selectFrom('checkouts')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('is_default', '=', planConstant(1)),
);

export async function findDefaultCheckout(db: Kysely<Database>, storeId: string): Promise<CheckoutsTable> {
  const row = (await selectDefaultCheckout(db, storeId)).rows[0];
  if (!row) throw new Error(`store ${storeId} has no default checkout`);
  return row;
}

export function listCheckoutsQuery(db: Kysely<Database>, storeId: string) {
  return db.selectFrom('checkouts').selectAll().where('store_id', '=', storeId);
}

export async function insertCheckout(
  db: Kysely<Database>,
  input: { storeId: string; name: string; settings: CheckoutSettings; isDefault: boolean },
): Promise<CheckoutsTable> {
  const now = nowIso();
  const row: CheckoutsTable = {
    id: newUuid(),
    store_id: input.storeId,
    name: input.name,
    is_default: input.isDefault ? 1 : 0,
    archived: 0,
    settings_json: JSON.stringify(input.settings),
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('checkouts').values(row).execute();
  return row;
}

/** The store's first checkout: the default one, with the documented default look. */
export function insertDefaultCheckout(db: Kysely<Database>, storeId: string): Promise<CheckoutsTable> {
  return insertCheckout(db, {
    storeId,
    name: 'Checkout padrão',
    settings: DEFAULT_CHECKOUT_SETTINGS,
    isDefault: true,
  });
}

/**
 * Archives (1) or unarchives (0) once: returns the changed row, or null when it already was in that
 * state (so no second event).
 */
export async function markArchived(
  db: Kysely<Database>,
  row: CheckoutsTable,
  archived: 0 | 1 = 1,
): Promise<CheckoutsTable | null> {
  const updated = { ...row, archived, updated_at: nowIso() };
  const result = await db
    .updateTable('checkouts')
    .set({ archived, updated_at: updated.updated_at })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .where('archived', '=', archived === 1 ? 0 : 1)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n ? updated : null;
}

/** Writes a new name and settings; returns the row as stored. */
export async function updateCheckout(
  db: Kysely<Database>,
  row: CheckoutsTable,
  changes: { name: string; settings: CheckoutSettings },
): Promise<CheckoutsTable> {
  const updated = {
    ...row,
    name: changes.name,
    settings_json: JSON.stringify(changes.settings),
    updated_at: nowIso(),
  };
  await db
    .updateTable('checkouts')
    .set({ name: updated.name, settings_json: updated.settings_json, updated_at: updated.updated_at })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .execute();
  return updated;
}
