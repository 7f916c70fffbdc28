import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { type DbBool, toBool } from '../../platform/db/schema.js';
import { Nullable, Timestamp } from '../../platform/http/schemas.js';
import { fromCents } from '../../platform/values/money.js';

export interface CouponsTable {
  id: string;
  store_id: string;
  /** As the merchant wrote it, upper-cased: codes compare case-insensitively. */
  code: string;
  /** The unique key per store (the upper-cased code). */
  code_key: string;
  percent_off: number | null;
  amount_off_cents: number | null;
  active: DbBool;
  max_redemptions: number | null;
  times_redeemed: number;
  expires_at: string | null;
  /** JSON array of product ids; empty applies to every product. */
  product_ids: string;
  created_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    coupons: CouponsTable;
  }
}

export const COUPON_ID_PATTERN = /^cpn_[0-9A-Za-z]{24}$/;
export const COUPON_CODE_PATTERN = '^[A-Za-z0-9_-]{3,40}$';

export const Coupon = Type.Object(
  {
    object: Type.Literal('coupon'),
    id: Type.String({ example: 'cpn_4mZ0b2kqP1sXw4TnYc7HaB9d' }),
    code: Type.String({ description: 'Upper-case; buyers may type it in any case.', example: 'BEMVINDO10' }),
    percent_off: Nullable(Type.Integer({ minimum: 1, maximum: 100 })),
    amount_off: Nullable(Type.Number({ example: 10 })),
    active: Type.Boolean(),
    max_redemptions: Nullable(Type.Integer({ minimum: 1 })),
    times_redeemed: Type.Integer({ description: 'Approved sales that used the coupon.' }),
    expires_at: Nullable(Timestamp),
    product_ids: Type.Array(Type.String({ format: 'uuid' }), {
      description: 'Products the coupon applies to; empty means every product.',
    }),
    created_at: Timestamp,
  },
  { $id: 'Coupon', title: 'Coupon' },
);

export type Coupon = Static<typeof Coupon>;

export function toCoupon(row: CouponsTable): Coupon {
  return {
    object: 'coupon',
    id: row.id,
    code: row.code,
    percent_off: row.percent_off,
    amount_off: row.amount_off_cents === null ? null : fromCents(row.amount_off_cents),
    active: toBool(row.active),
    max_redemptions: row.max_redemptions,
    times_redeemed: row.times_redeemed,
    expires_at: row.expires_at,
    product_ids: JSON.parse(row.product_ids) as string[],
    created_at: row.created_at,
  };
}

/** What a coupon takes off a price: the main product's only, never below zero. */
export function discountCents(row: CouponsTable, priceCents: number): number {
  const off =
    row.percent_off !== null ? Math.round((priceCents * row.percent_off) / 100) : (row.amount_off_cents ?? 0);
  return Math.min(off, priceCents);
}
