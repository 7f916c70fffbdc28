import { sql } from 'kysely';
import { planConstant, planConstants } from '../../platform/db/plan-constant.js';
import { reusedInsert, reusedQuery } from '../../platform/db/reused-query.js';
import type { Kysely } from 'kysely';
import { fromBool } from '../../platform/db/schema.js';
import type { Database } from '../../platform/db/schema.js';
import { hashOrderToken } from './order-object.js';
import type { OrdersTable } from './order-object.js';
import { UNPAID } from '../kernel/order-status.js';
import type { OrderStatus } from '../kernel/order-status.js';

/** Scoped by store and mode, like charges and sales: a test key never sees a live order. */
export interface OrderScope {
  storeId: string;
  livemode: boolean;
}

const selectByTokenHash = reusedQuery('select order by token', (db: Kysely<Database>, tokenHash: string) =>
  db.selectFrom('orders').selectAll().where('token_hash', '=', tokenHash),
);

export async function findOrderByToken(
  db: Kysely<Database>,
  token: string,
): Promise<OrdersTable | undefined> {
  return (await selectByTokenHash(db, hashOrderToken(token))).rows[0];
}

const selectOrder = reusedQuery('select order', (db: Kysely<Database>, storeId: string, id: string) =>
  db.selectFrom('orders').selectAll().where('store_id', '=', storeId).where('id', '=', id),
);

export async function findOrder(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<OrdersTable | undefined> {
  return (await selectOrder(db, storeId, id)).rows[0];
}

export interface OrderFilters {
  status?: OrderStatus | undefined;
  productId?: string | undefined;
  createdGte?: string | undefined;
  createdLte?: string | undefined;
}

/** The API's listing of one store and mode, filtered in the database. */
export function listOrdersQuery(db: Kysely<Database>, scope: OrderScope, filters: OrderFilters = {}) {
  return db
    .selectFrom('orders')
    .selectAll()
    .where('store_id', '=', scope.storeId)
    .where('livemode', '=', fromBool(scope.livemode))
    .$if(filters.status !== undefined, (q) => q.where('status', '=', filters.status!))
    .$if(filters.productId !== undefined, (q) => q.where('product_id', '=', filters.productId!))
    .$if(filters.createdGte !== undefined, (q) => q.where('created_at', '>=', filters.createdGte!))
    .$if(filters.createdLte !== undefined, (q) => q.where('created_at', '<=', filters.createdLte!));
}

export function findScopedOrder(db: Kysely<Database>, scope: OrderScope, id: string) {
  return listOrdersQuery(db, scope).where('id', '=', id).executeTakeFirst();
}

const insertOrderRow = reusedInsert('insert order', (db: Kysely<Database>, row: OrdersTable) =>
  db.insertInto('orders').values(row),
);

export async function insertOrder(db: Kysely<Database>, row: OrdersTable): Promise<void> {
  await insertOrderRow(db, row);
}

const updateCharge = reusedQuery(
  'point order at charge',
  (db: Kysely<Database>, chargeId: string, holdUntil: string, storeId: string, id: string) =>
    db
      .updateTable('orders')
      .set({ pix_charge_id: chargeId, hold_until: holdUntil, payment_method: 'pix' })
      .where('store_id', '=', storeId)
      .where('id', '=', id)
      .returningAll(),
);

/** Points the order at its (new) charge; returns the row as it now is. */
export async function setOrderCharge(
  db: Kysely<Database>,
  row: OrdersTable,
  chargeId: string,
  holdUntil: string,
): Promise<OrdersTable> {
  const updated = (await updateCharge(db, chargeId, holdUntil, row.store_id, row.id)).rows[0];
  if (!updated) throw new Error(`order ${row.id} is missing`);
  return updated;
}

/** Points the order at the card payment made for it; returns the row as it now is. */
export function setOrderCardPayment(
  db: Kysely<Database>,
  row: OrdersTable,
  paymentId: string,
): Promise<OrdersTable> {
  return db
    .updateTable('orders')
    .set({ card_payment_id: paymentId })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteOrder(db: Kysely<Database>, row: OrdersTable): Promise<void> {
  await db.deleteFrom('orders').where('store_id', '=', row.store_id).where('id', '=', row.id).execute();
}

/**
 * Marks paid, once, the unpaid order whose `column` is `key`: pending or abandoned → paid, naming its
 * sale; one paid after it was abandoned is `recovered`. Finding and marking are one statement.
 */
const markPaidBy = (column: 'id' | 'pix_charge_id') =>
  reusedQuery(
    `mark order paid by ${column}`,
    (db: Kysely<Database>, saleId: string, paidAt: string, storeId: string, key: string) =>
      db
        .updateTable('orders')
        .set({
          status: 'paid',
          sale_id: saleId,
          paid_at: paidAt,
          recovered: sql<number>`case when status = 'abandoned' then 1 else 0 end`,
        })
        .where('store_id', '=', storeId)
        .where(column, '=', key)
        .where('status', 'in', planConstants(UNPAID))
        .returningAll(),
  );

const markPaidById = markPaidBy('id');
const markPaidByCharge = markPaidBy('pix_charge_id');

/** Returns the paid row, or undefined when something else settled it first. */
export async function markOrderPaid(
  db: Kysely<Database>,
  row: { store_id: string; id: string },
  saleId: string,
  paidAt: string,
): Promise<OrdersTable | undefined> {
  return (await markPaidById(db, saleId, paidAt, row.store_id, row.id)).rows[0];
}

/** `markOrderPaid` for the order a charge pays; undefined also when it has none (an API charge). */
export async function markOrderOfChargePaid(
  db: Kysely<Database>,
  charge: { store_id: string; id: string },
  saleId: string,
  paidAt: string,
): Promise<OrdersTable | undefined> {
  return (await markPaidByCharge(db, saleId, paidAt, charge.store_id, charge.id)).rows[0];
}

/** pending → abandoned once (the sweep and the test-mode simulation race safely); the row, or undefined. */
export function markOrderAbandoned(
  db: Kysely<Database>,
  row: Pick<OrdersTable, 'store_id' | 'id'>,
  abandonedAt: string,
): Promise<OrdersTable | undefined> {
  return db
    .updateTable('orders')
    .set({ status: 'abandoned', abandoned_at: abandonedAt })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .where('status', '=', planConstant('pending'))
    .returningAll()
    .executeTakeFirst();
}

/** The unpaid order whose current charge the store canceled becomes `canceled`; the row, or undefined. */
export function markOrderCanceled(
  db: Kysely<Database>,
  storeId: string,
  chargeId: string,
): Promise<OrdersTable | undefined> {
  return db
    .updateTable('orders')
    .set({ status: 'canceled' })
    .where('store_id', '=', storeId)
    .where('pix_charge_id', '=', chargeId)
    .where('status', 'in', planConstants(UNPAID))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Pending orders placed at or before `placedBy`, oldest first, across stores: the sweep's work list.
 * An order whose card payment the PSP is still deciding (`processing`) is not abandoned: the buyer
 * paid and waits, and a recovery e-mail would ask them to pay again.
 */
export function findOrdersToAbandon(db: Kysely<Database>, placedBy: string, limit: number) {
  return db
    .selectFrom('orders')
    .select(['orders.id', 'orders.store_id'])
    .where('orders.status', '=', planConstant('pending'))
    .where('orders.created_at', '<=', placedBy)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('card_payments')
            .select('card_payments.id')
            .whereRef('card_payments.id', '=', 'orders.card_payment_id')
            .where('card_payments.status', '=', 'processing'),
        ),
      ),
    )
    .orderBy('created_at')
    .limit(limit)
    .execute();
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
    .where('status', 'in', planConstants(UNPAID))
    .where('hold_until', '=', row.hold_until)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
