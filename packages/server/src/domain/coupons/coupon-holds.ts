import type { Kysely } from 'kysely';
import { planConstants } from '../../platform/db/plan-constant.js';
import type { Database } from '../../platform/db/schema.js';
import { nowIso } from '../../platform/values/time.js';
import { discountCents } from './coupon-object.js';
import type { CouponsTable } from './coupon-object.js';
import { findCouponByCode } from './coupons-repository.js';
import { UNPAID } from '../kernel/order-status.js';

/** Why a buyer's coupon is refused, in the buyer's language. */
export class CouponRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CouponRefused';
  }
}

export interface CouponRequest {
  storeId: string;
  code: string;
  productId: string;
  priceCents: number;
  /** An order renewing its charge does not count its own (lapsed) hold. */
  exceptOrderId?: string;
}

export interface UsableCoupon {
  coupon: CouponsTable;
  discountCents: number;
}

/**
 * The coupon a buyer typed, if it can be used now on this product, with the discount it gives; else
 * `CouponRefused` saying why. A limited coupon must have a redemption left that no pending order holds
 * (an abandoned one too; an order whose charge the store canceled holds none).
 */
export async function usableCoupon(db: Kysely<Database>, input: CouponRequest): Promise<UsableCoupon> {
  const now = nowIso();
  const coupon = await findCouponByCode(db, input.storeId, input.code.trim());
  if (!coupon || coupon.active !== 1) throw new CouponRefused('Cupom inválido.');
  if (coupon.expires_at !== null && coupon.expires_at <= now) throw new CouponRefused('Este cupom expirou.');
  const productIds = JSON.parse(coupon.product_ids) as string[];
  if (productIds.length > 0 && !productIds.includes(input.productId)) {
    throw new CouponRefused('Este cupom não vale para este produto.');
  }
  if (coupon.max_redemptions !== null) {
    let holds = db
      .selectFrom('orders')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('coupon_id', '=', coupon.id)
      // Unpaid orders, an abandoned one too (its buyer may renew the Pix). An order whose Pix the
      // store canceled is `canceled` from that commit on, and holds nothing.
      .where('status', 'in', planConstants(UNPAID))
      .where('hold_until', '>', now);
    if (input.exceptOrderId !== undefined) holds = holds.where('id', '<>', input.exceptOrderId);
    const held = Number((await holds.executeTakeFirstOrThrow()).n);
    if (coupon.times_redeemed + held >= coupon.max_redemptions)
      throw new CouponRefused('Este cupom esgotou.');
  }
  return { coupon, discountCents: discountCents(coupon, input.priceCents) };
}

/**
 * A limited coupon is never promised to more buyers than it has redemptions left: a pending order
 * holds one until its Pix expires or the store cancels it (a renewed Pix holds it again), and a redemption counts when the sale is
 * approved. So of ten buyers racing for the last five, five get the discount and the sixth is told at
 * once that the coupon ran out, before paying anything; nobody pays a discounted price the coupon can
 * no longer cover.
 *
 * Must run in the transaction that inserts the order: the coupon's row is locked first (a no-op
 * update), so concurrent orders for one coupon count holds one after the other on PostgreSQL (SQLite
 * has a single writer anyway), each seeing the orders committed before it.
 */
export async function holdCoupon(trx: Kysely<Database>, input: CouponRequest): Promise<UsableCoupon> {
  await trx
    .updateTable('coupons')
    .set((eb) => ({ times_redeemed: eb.ref('times_redeemed') }))
    .where('store_id', '=', input.storeId)
    .where('code_key', '=', input.code.trim().toUpperCase())
    .execute();
  return usableCoupon(trx, input);
}

/** Counts a redemption: called once per approved sale, in the transaction that approves it. */
export async function countRedemption(trx: Kysely<Database>, couponId: string): Promise<void> {
  await trx
    .updateTable('coupons')
    .set((eb) => ({ times_redeemed: eb('times_redeemed', '+', 1) }))
    .where('id', '=', couponId)
    .execute();
}
