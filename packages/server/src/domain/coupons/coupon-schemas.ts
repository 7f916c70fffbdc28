import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { PageQuery } from '../../platform/http/pagination.js';
import { Money, Nullable, Timestamp } from '../../platform/http/schemas.js';
import { COUPON_CODE_PATTERN } from './coupon-object.js';

/*
 * The bodies of the coupons API; the dashboard's Cupons forms are checked against these same schemas.
 */

export const MAX_PRODUCT_IDS = 100;

const editable = {
  active: Type.Boolean({ description: 'Defaults to true. An inactive coupon is refused on the page.' }),
  max_redemptions: Nullable(
    Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'null (the default) is unlimited.' }),
  ),
  expires_at: Nullable(
    Type.String({ ...Timestamp, description: 'When the coupon stops being accepted; null never.' }),
  ),
  product_ids: Type.Array(Type.String({ format: 'uuid' }), {
    maxItems: MAX_PRODUCT_IDS,
    uniqueItems: true,
    description: 'Products of the store it applies to (at most 100); empty (the default) is every product.',
  }),
};

export const CreateCouponBody = Type.Object(
  {
    code: Type.String({
      pattern: COUPON_CODE_PATTERN,
      description: '3-40 of A-Z, 0-9, `_` and `-`; unique per store whatever the case; stored upper-case.',
      example: 'BEMVINDO10',
    }),
    percent_off: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'Either this or amount_off.' }),
    ),
    amount_off: Type.Optional(
      Money({
        minimum: 0.01,
        maximum: 1_000_000,
        description: 'BRL off the price; either this or percent_off.',
      }),
    ),
    ...Type.Partial(Type.Object(editable)).properties,
  },
  // A whole example: the field-by-field one would send both discounts, or a past expiry.
  { additionalProperties: false, example: { code: 'BEMVINDO10', percent_off: 10, max_redemptions: 100 } },
);
export type CreateCouponBody = Static<typeof CreateCouponBody>;

/** The code and the discount are fixed at creation: sales already made name them. */
export const UpdateCouponBody = Type.Partial(Type.Object(editable), { additionalProperties: false });
export type UpdateCouponBody = Static<typeof UpdateCouponBody>;

export const ListCouponsQuery = Type.Partial(
  Type.Object({ ...PageQuery, active: Type.Boolean({ description: '`true` or `false`.' }) }),
  { additionalProperties: false },
);
