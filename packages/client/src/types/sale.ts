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
  /** The e-mail sent to the customer on approval (API 1.1.0); null when the customer has no e-mail. */
  delivery_email: DeliveryEmail | null;
  /**
   * The refund asked for (API 1.1.0), null before any. A live refund is `pending` until the PSP
   * settles it: then the sale is `refunded` (`sale.refunded`), or `failed` with a reason
   * (`sale.refund_failed`) and may be refunded again.
   */
  refund: SaleRefund | null;
}

export type DeliveryEmailStatus = 'pending' | 'sent' | 'failed' | 'skipped';

export interface DeliveryEmail {
  /**
   * `pending`: queued or waiting for a retry; `sent`: a mail server accepted it; `failed`: refused
   * permanently or out of retries; `skipped`: the service has no SMTP_URL.
   */
  status: DeliveryEmailStatus;
  /** Sending attempts made so far, resends included. */
  attempts: number;
  /** When a mail server last accepted it. */
  sent_at: Timestamp | null;
  /** Why the last attempt did not go out, in plain words; null once sent. */
  last_error: string | null;
}

export interface SaleRefund {
  status: 'pending' | 'succeeded' | 'failed';
  requested_at: Timestamp;
  failure_reason: string | null;
}

export type SaleListParams = ListParams;
