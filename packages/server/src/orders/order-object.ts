import { createHash, randomBytes } from 'node:crypto';
import type { DbBool } from '../db/schema.js';
import type { SaleCoupon, SaleItem } from '../sales/sale-object.js';

export type OrderStatus = 'pending' | 'paid';

/** A buyer's order on a purchase page: what they chose, who they are, and the charge paying it. */
export interface OrdersTable {
  id: string;
  store_id: string;
  /** SHA-256 (hex) of the order token: the URL's token is the only key, and it is never stored. */
  token_hash: string;
  livemode: DbBool;
  status: OrderStatus;
  product_id: string;
  /** JSON SaleItem[]: the main product (after the coupon) and the bump when taken. */
  items: string;
  coupon_id: string | null;
  /** JSON SaleCoupon, or null. */
  coupon: string | null;
  amount_cents: number;
  /** JSON Customer. */
  customer: string;
  /** The current charge; a new Pix for an expired order replaces it. Null for a free order. */
  pix_charge_id: string | null;
  /** Until when this pending order holds one of its coupon's limited redemptions. */
  hold_until: string;
  sale_id: string | null;
  created_at: string;
}

declare module '../db/schema.js' {
  interface Tables {
    orders: OrdersTable;
  }
}

export const ORDER_TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** 128 random bits, URL-safe (22 characters). */
export function newOrderToken(): string {
  return randomBytes(16).toString('base64url');
}

export function hashOrderToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export const orderItems = (row: OrdersTable): SaleItem[] => JSON.parse(row.items) as SaleItem[];
export const orderCoupon = (row: OrdersTable): SaleCoupon | null =>
  row.coupon === null ? null : (JSON.parse(row.coupon) as SaleCoupon);
