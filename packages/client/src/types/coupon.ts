import type { ListParams, Timestamp } from './shared.js';

/** A discount code buyers type on a purchase page; it discounts the main product only. */
export interface Coupon {
  object: 'coupon';
  id: string;
  /** Upper-case; buyers may type it in any case. */
  code: string;
  /** 1-100, or null when the coupon takes an amount off. */
  percent_off: number | null;
  /** BRL, or null when the coupon takes a percentage off. */
  amount_off: number | null;
  active: boolean;
  /** null is unlimited. */
  max_redemptions: number | null;
  /** Approved sales that used the coupon. */
  times_redeemed: number;
  expires_at: Timestamp | null;
  /** Products it applies to; empty is every product. */
  product_ids: string[];
  created_at: Timestamp;
}

export interface CouponUpdateParams {
  active?: boolean;
  max_redemptions?: number | null;
  expires_at?: Timestamp | null;
  product_ids?: string[];
}

/** Exactly one of `percent_off` and `amount_off`. */
export interface CouponCreateParams extends CouponUpdateParams {
  /** 3-40 of A-Z, 0-9, `_` and `-`; unique per store whatever the case. */
  code: string;
  percent_off?: number;
  amount_off?: number;
}

export interface CouponListParams extends ListParams {
  active?: boolean;
}
