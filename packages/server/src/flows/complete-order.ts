import type { Kysely } from 'kysely';
import { countRedemption } from '../domain/coupons/coupon-holds.js';
import type { Database } from '../platform/db/schema.js';
import { dropRecoveryEmail } from './queue-recovery-email.js';
import type { SalesTable } from '../domain/sales/sale-object.js';
import type { OrdersTable } from '../domain/orders/order-object.js';
import { markOrderOfChargePaid, markOrderPaid } from '../domain/orders/orders-repository.js';

/** What a sale learns from the order it completes. */
export type SaleFromOrder = Pick<SalesTable, 'product_id' | 'items' | 'coupon' | 'recovered'>;

const NO_ORDER: SaleFromOrder = { product_id: null, items: null, coupon: null, recovered: 0 };

/**
 * Completes an order in the transaction that approves its sale: the order becomes paid (`recovered`
 * when it had been abandoned), a recovery e-mail still waiting is dropped, and its coupon counts one
 * redemption, so a sale and its redemption commit together, exactly once.
 */
export async function completeOrder(
  trx: Kysely<Database>,
  order: Pick<OrdersTable, 'store_id' | 'id'>,
  saleId: string,
  paidAt: string,
): Promise<{ order: OrdersTable | undefined; sale: SaleFromOrder }> {
  return settlePaidOrder(trx, await markOrderPaid(trx, order, saleId, paidAt));
}

/** What follows an order's payment; undefined (it was not unpaid, or there is none): nothing. */
async function settlePaidOrder(
  trx: Kysely<Database>,
  paid: OrdersTable | undefined,
): Promise<{ order: OrdersTable | undefined; sale: SaleFromOrder }> {
  if (!paid) return { order: undefined, sale: NO_ORDER };
  await dropRecoveryEmail(trx, paid.id);
  if (paid.coupon_id !== null) await countRedemption(trx, paid.coupon_id);
  return {
    order: paid,
    sale: { product_id: paid.product_id, items: paid.items, coupon: paid.coupon, recovered: paid.recovered },
  };
}

/** The order a paid charge belongs to, completed; a charge made through the API has none. */
export async function completeOrderOfCharge(
  trx: Kysely<Database>,
  charge: { id: string; store_id: string },
  saleId: string,
  paidAt: string,
): Promise<SaleFromOrder> {
  return (await settlePaidOrder(trx, await markOrderOfChargePaid(trx, charge, saleId, paidAt))).sale;
}

/** The purchase-page order a card payment pays, completed; a payment made through the API has none. */
export async function completeOrderOfCardPayment(
  trx: Kysely<Database>,
  payment: { store_id: string; order_id: string | null },
  saleId: string,
  paidAt: string,
): Promise<SaleFromOrder> {
  if (payment.order_id === null) return NO_ORDER;
  const order = { store_id: payment.store_id, id: payment.order_id };
  return (await completeOrder(trx, order, saleId, paidAt)).sale;
}
