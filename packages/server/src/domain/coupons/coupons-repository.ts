import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { CouponsTable } from './coupon-object.js';

/** Every query here is scoped by store: another store's coupon simply does not exist. */
export function listCouponsQuery(db: Kysely<Database>, storeId: string) {
  return db.selectFrom('coupons').selectAll().where('store_id', '=', storeId);
}

export function findCoupon(db: Kysely<Database>, storeId: string, id: string) {
  return listCouponsQuery(db, storeId).where('id', '=', id).executeTakeFirst();
}

export function findCouponByCode(db: Kysely<Database>, storeId: string, code: string) {
  return listCouponsQuery(db, storeId).where('code_key', '=', code.toUpperCase()).executeTakeFirst();
}

/** Throws a unique violation when the store already has this code (in any case). */
export async function insertCoupon(db: Kysely<Database>, row: CouponsTable): Promise<void> {
  await db.insertInto('coupons').values(row).execute();
}

export async function updateCoupon(
  db: Kysely<Database>,
  row: CouponsTable,
  changes: Partial<CouponsTable>,
): Promise<CouponsTable> {
  if (Object.keys(changes).length > 0) {
    await db
      .updateTable('coupons')
      .set(changes)
      .where('store_id', '=', row.store_id)
      .where('id', '=', row.id)
      .execute();
  }
  return { ...row, ...changes };
}
