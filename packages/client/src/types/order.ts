import type { SaleCoupon, SaleItem } from './sale.js';
import type { Customer, ListParams, Timestamp } from './shared.js';

/** The campaign parameters a purchase page found in its URL (API 1.2.0); only those present. */
export interface Tracking {
  utm_source?: string;
  utm_medium?: string;
  utm_campaign?: string;
  utm_term?: string;
  utm_content?: string;
  src?: string;
  sck?: string;
  fbclid?: string;
  gclid?: string;
}

/**
 * `abandoned`: unpaid 30 minutes after it was placed (still payable through a renewed Pix);
 * `canceled`: the store canceled its Pix.
 */
export type OrderStatus = 'pending' | 'paid' | 'abandoned' | 'canceled';

export interface OrderRecoveryEmail {
  /**
   * `pending`: waiting for its time or a retry; `sent`; `failed`; `skipped`: no SMTP on the service,
   * or the order was paid or canceled first.
   */
  status: 'pending' | 'sent' | 'failed' | 'skipped';
  sent_at: Timestamp | null;
}

/** An order a buyer placed on a purchase page (API 1.2.0). */
export interface Order {
  object: 'order';
  id: string;
  status: OrderStatus;
  product_id: string;
  items: SaleItem[];
  coupon: SaleCoupon | null;
  /** BRL. */
  amount: number;
  customer: Customer;
  tracking: Tracking;
  /** The current charge: a renewed Pix replaces it. */
  pix_charge_id: string | null;
  sale_id: string | null;
  /** Paid after it was abandoned. */
  recovered: boolean;
  /** The abandoned-order e-mail; null when none is due. */
  recovery_email: OrderRecoveryEmail | null;
  created_at: Timestamp;
  paid_at: Timestamp | null;
  abandoned_at: Timestamp | null;
}

/** What `order.created` and `order.abandoned` carry: the order and the absolute URL of its page. */
export interface OrderEventObject extends Order {
  order_url: string | null;
}

export interface OrderListParams extends ListParams {
  status?: OrderStatus;
  product_id?: string;
  /** Only orders placed at or after this instant. */
  'created[gte]'?: Timestamp;
  /** Only orders placed at or before this instant. */
  'created[lte]'?: Timestamp;
}
