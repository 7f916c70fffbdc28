import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../platform/db/database.js';
import { fromBool } from '../../platform/db/schema.js';
import type { Database } from '../../platform/db/schema.js';
import { invalidRequest, notFound } from '../../platform/http/api-error.js';
import { prefixedId } from '../../platform/values/ids.js';
import { toCents } from '../../platform/values/money.js';
import { nowIso } from '../../platform/values/time.js';
import { COUPON_ID_PATTERN, toCoupon } from './coupon-object.js';
import type { Coupon, CouponsTable } from './coupon-object.js';
import type { CreateCouponBody, UpdateCouponBody } from './coupon-schemas.js';
import { findCoupon, insertCoupon, updateCoupon } from './coupons-repository.js';
import type { OnWrite } from '../kernel/write-context.js';

/*
 * Creating, changing and archiving a coupon: the API's /coupons routes and the dashboard's Cupons
 * page both go through here, so the rules exist once. Every query is scoped by store.
 */

export async function couponOr404(db: Kysely<Database>, storeId: string, id: string): Promise<CouponsTable> {
  const row = COUPON_ID_PATTERN.test(id) ? await findCoupon(db, storeId, id) : undefined;
  if (!row) throw notFound('coupon', id);
  return row;
}

/** Rules beyond the schema, shared by creation and change: the dates and the store's products. */
async function checkEditable(db: Kysely<Database>, storeId: string, body: UpdateCouponBody): Promise<void> {
  if (body.expires_at && body.expires_at <= nowIso()) {
    throw invalidRequest('expires_at must be in the future.', 'expires_at');
  }
  const ids = body.product_ids ?? [];
  if (ids.length === 0) return;
  const found = await db
    .selectFrom('products')
    .select('id')
    .where('store_id', '=', storeId)
    .where('id', 'in', ids)
    .execute();
  const known = new Set(found.map((row) => row.id));
  const missing = ids.findIndex((id) => !known.has(id));
  if (missing >= 0) {
    throw invalidRequest(`No such product: '${ids[missing]}'.`, `product_ids.${missing}`);
  }
}

function discountOf(body: CreateCouponBody): Pick<CouponsTable, 'percent_off' | 'amount_off_cents'> {
  const hasPercent = body.percent_off !== undefined;
  const hasAmount = body.amount_off !== undefined;
  if (hasPercent === hasAmount) {
    throw invalidRequest(
      'Send exactly one of percent_off and amount_off.',
      hasPercent ? 'amount_off' : 'percent_off',
    );
  }
  return {
    percent_off: body.percent_off ?? null,
    amount_off_cents: body.amount_off === undefined ? null : toCents(body.amount_off),
  };
}

export async function createCoupon(
  db: Kysely<Database>,
  storeId: string,
  body: CreateCouponBody,
): Promise<Coupon> {
  const discount = discountOf(body);
  await checkEditable(db, storeId, body);
  const code = body.code.toUpperCase();
  const row: CouponsTable = {
    id: prefixedId('cpn'),
    store_id: storeId,
    code,
    code_key: code,
    ...discount,
    active: fromBool(body.active ?? true),
    max_redemptions: body.max_redemptions ?? null,
    times_redeemed: 0,
    expires_at: body.expires_at ?? null,
    product_ids: JSON.stringify(body.product_ids ?? []),
    created_at: nowIso(),
  };
  try {
    await insertCoupon(db, row);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    throw invalidRequest(`This store already has a coupon with the code '${code}'.`, 'code');
  }
  return toCoupon(row);
}

/**
 * Changes only the fields sent; a limit below the redemptions already counted is refused. `onWrite`
 * (its audit entry, given the coupon before and after) runs in the same transaction.
 */
export function editCoupon(
  db: Kysely<Database>,
  storeId: string,
  id: string,
  body: UpdateCouponBody,
  onWrite?: OnWrite<{ before: CouponsTable; after: Coupon }>,
): Promise<Coupon> {
  return db.transaction().execute(async (trx) => {
    const row = await couponOr404(trx, storeId, id);
    await checkEditable(trx, storeId, body);
    if (body.max_redemptions != null && body.max_redemptions < row.times_redeemed) {
      throw invalidRequest(
        `max_redemptions cannot be below times_redeemed (${row.times_redeemed}).`,
        'max_redemptions',
      );
    }
    const changes: Partial<CouponsTable> = {
      ...(body.active !== undefined && { active: fromBool(body.active) }),
      ...(body.max_redemptions !== undefined && { max_redemptions: body.max_redemptions }),
      ...(body.expires_at !== undefined && { expires_at: body.expires_at }),
      ...(body.product_ids !== undefined && { product_ids: JSON.stringify(body.product_ids) }),
    };
    const after = toCoupon(await updateCoupon(trx, row, changes));
    await onWrite?.(trx, { before: row, after });
    return after;
  });
}

/** Makes the coupon inactive (idempotent): the purchase page refuses it from then on. */
export async function archiveCoupon(db: Kysely<Database>, storeId: string, id: string): Promise<Coupon> {
  const row = await couponOr404(db, storeId, id);
  return toCoupon(await updateCoupon(db, row, { active: 0 }));
}
