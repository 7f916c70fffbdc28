import type { Customer, ListParams, Timestamp } from './shared.js';

export type SaleStatus = 'approved' | 'refunded';

/** One thing a purchase-page order bought. */
export interface SaleItem {
  product_id: string;
  nome: string;
  /** BRL paid for this item (the main product after any coupon). */
  amount: number;
  kind: 'product' | 'order_bump';
}

/** The coupon a purchase-page order used. */
export interface SaleCoupon {
  code: string;
  /** BRL taken off the main product. */
  discount: number;
}

/** A sale, created when a Pix charge is paid, or at once for a free purchase-page order. */
export interface Sale {
  object: 'sale';
  id: string;
  status: SaleStatus;
  /** BRL. */
  amount: number;
  /** `free` when a purchase-page order totalled 0 and completed without a charge. */
  payment_method: 'pix' | 'free';
  pix_charge_id: string | null;
  product_id: string | null;
  customer: Customer | null;
  /** What a purchase-page order bought; empty for a charge created through the API. */
  items: SaleItem[];
  coupon: SaleCoupon | null;
  livemode: boolean;
  created_at: Timestamp;
  refunded_at: Timestamp | null;
}

export type SaleListParams = ListParams;
