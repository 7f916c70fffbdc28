import type { Kysely } from 'kysely';
import { countRedemption } from '../coupons/coupon-holds.js';
import type { Database } from '../db/schema.js';
import type { SalesTable } from '../sales/sale-object.js';
import type { OrdersTable } from './order-object.js';
import { findOrderByCharge, markOrderPaid } from './orders-repository.js';

/** What a sale learns from the order it completes. */
export type SaleFromOrder = Pick<SalesTable, 'product_id' | 'items' | 'coupon'>;

const NO_ORDER: SaleFromOrder = { product_id: null, items: null, coupon: null };

/**
 * Completes an order in the transaction that approves its sale: the order becomes paid and its coupon
 * counts one redemption, so a sale and its redemption commit together, exactly once.
 */
export async function completeOrder(
  trx: Kysely<Database>,
  order: OrdersTable,
  saleId: string,
): Promise<SaleFromOrder> {
  if (!(await markOrderPaid(trx, order, saleId))) return NO_ORDER;
  if (order.coupon_id !== null) await countRedemption(trx, order.coupon_id);
  return { product_id: order.product_id, items: order.items, coupon: order.coupon };
}

/** The order a paid charge belongs to, completed; a charge made through the API has none. */
export async function completeOrderOfCharge(
  trx: Kysely<Database>,
  charge: { id: string; store_id: string },
  saleId: string,
): Promise<SaleFromOrder> {
  const order = await findOrderByCharge(trx, charge.store_id, charge.id);
  return order ? completeOrder(trx, order, saleId) : NO_ORDER;
}
