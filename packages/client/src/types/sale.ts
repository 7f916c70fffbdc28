import type { Customer, ListParams, Timestamp } from './shared.js';

export type SaleStatus = 'approved' | 'refunded';

/** A sale, created when a Pix charge is paid. */
export interface Sale {
  object: 'sale';
  id: string;
  status: SaleStatus;
  /** BRL. */
  amount: number;
  payment_method: 'pix';
  pix_charge_id: string | null;
  product_id: string | null;
  customer: Customer | null;
  livemode: boolean;
  created_at: Timestamp;
  refunded_at: Timestamp | null;
}

export type SaleListParams = ListParams;
