import type { Customer, ListParams, Timestamp } from './shared.js';

export type SaleStatus = 'approved' | 'refunded';

/** A sale, created when a Pix charge is paid (DESIGN §4). */
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
  /**
   * The refund asked for (API 1.1.0), null before any. A live refund is `pending` until the PSP
   * settles it: then the sale is `refunded` (`sale.refunded`), or `failed` with a reason
   * (`sale.refund_failed`) and may be refunded again.
   */
  refund: SaleRefund | null;
}

export interface SaleRefund {
  status: 'pending' | 'succeeded' | 'failed';
  requested_at: Timestamp;
  failure_reason: string | null;
}

export type SaleListParams = ListParams;
