import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { hashOrderToken } from './order-object.js';
import type { OrdersTable } from './order-object.js';

export function findOrderByToken(db: Kysely<Database>, token: string) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('token_hash', '=', hashOrderToken(token))
    .executeTakeFirst();
}

export function findOrder(db: Kysely<Database>, storeId: string, id: string) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export function findOrderByCharge(db: Kysely<Database>, storeId: string, chargeId: string) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('pix_charge_id', '=', chargeId)
    .executeTakeFirst();
}

export async function insertOrder(db: Kysely<Database>, row: OrdersTable): Promise<void> {
  await db.insertInto('orders').values(row).execute();
}

export async function setOrderCharge(
  db: Kysely<Database>,
  row: OrdersTable,
  chargeId: string,
  holdUntil: string,
) {
  await db
    .updateTable('orders')
    .set({ pix_charge_id: chargeId, hold_until: holdUntil })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .execute();
}

export async function deleteOrder(db: Kysely<Database>, row: OrdersTable): Promise<void> {
  await db.deleteFrom('orders').where('store_id', '=', row.store_id).where('id', '=', row.id).execute();
}

/** pending → paid once, naming its sale. */
export async function markOrderPaid(
  db: Kysely<Database>,
  row: OrdersTable,
  saleId: string,
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({ status: 'paid', sale_id: saleId })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Claims the renewal of an order whose charge is over: of several clicks on "new Pix", one wins (the
 * one that moves `hold_until` off the value all of them read); the others see the order as it becomes.
 */
export async function claimRenewal(
  db: Kysely<Database>,
  row: OrdersTable,
  holdUntil: string,
): Promise<boolean> {
  const result = await db
    .updateTable('orders')
    .set({ hold_until: holdUntil })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .where('status', '=', 'pending')
    .where('hold_until', '=', row.hold_until)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
