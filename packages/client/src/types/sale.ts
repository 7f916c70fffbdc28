import type { Tracking } from './order.js';
import type { Customer, ListParams, Timestamp } from './shared.js';

/** `charged_back` (API 1.3.0): the buyer disputed a card payment and the PSP took the money back. */
export type SaleStatus = 'approved' | 'refunded' | 'charged_back';

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

/** A sale, created when a Pix charge or a card payment is paid, or at once for a free purchase-page order. */
export interface Sale {
  object: 'sale';
  id: string;
  status: SaleStatus;
  /** BRL. For a card sale, the goods' price: the buyer's interest is in the card payment's `total_amount`. */
  amount: number;
  /**
   * `free` when a purchase-page order totalled 0 and completed without a charge; `card` (API 1.3.0)
   * when paid by card.
   */
  payment_method: 'pix' | 'free' | 'card';
  pix_charge_id: string | null;
  /** The card payment that paid this sale (API 1.3.0); null otherwise. */
  card_payment_id: string | null;
  /** How many installments the buyer chose for a card sale (API 1.3.0); null otherwise. */
  installments: number | null;
  product_id: string | null;
  customer: Customer | null;
  /** What a purchase-page order bought; empty for a charge created through the API. */
  items: SaleItem[];
  coupon: SaleCoupon | null;
  /** Where the sale came from: its order's or charge's campaign parameters (API 1.2.0). */
  tracking: Tracking;
  /** Its purchase-page order was paid after being abandoned (API 1.2.0). */
  recovered: boolean;
  /** The subscription this sale bills (API 1.2.0); null for a one-off sale. */
  subscription_id: string | null;
  /** Which of its subscription's cycles this sale pays: 1 for the first payment. */
  cycle: number | null;
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
