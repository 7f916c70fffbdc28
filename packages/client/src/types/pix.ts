import type { Tracking } from './order.js';
import type { Customer, ListParams, Metadata, Timestamp } from './shared.js';

/** `canceled` since API 1.1.0. */
export type PixChargeStatus = 'pending' | 'paid' | 'expired' | 'canceled';

/** A Pix charge. */
export interface PixCharge {
  object: 'pix_charge';
  /** Starts with `pix_`. */
  id: string;
  status: PixChargeStatus;
  /** BRL, at most 2 decimals. */
  amount: number;
  description: string | null;
  /** The caller's own identifier, when one was given. */
  external_id: string | null;
  customer: Customer | null;
  metadata: Metadata | null;
  /** The product the charge sells, when it names one (API 1.1.0). */
  product_id: string | null;
  /** Campaign parameters (API 1.2.0): a purchase page's, or those sent on creation; `{}` when none. */
  tracking: Tracking;
  expires_at: Timestamp;
  paid_at: Timestamp | null;
  /** When the charge was canceled (API 1.1.0); null otherwise. */
  canceled_at: Timestamp | null;
  livemode: boolean;
  created_at: Timestamp;
  pix: {
    /** EMV BR Code ("Pix copia e cola"). */
    copy_paste: string;
    /** PNG image of the QR code, base64 without a data-URL prefix. */
    qr_code_base64: string;
    txid: string;
  };
}

export interface PixChargeCreateParams {
  /** BRL, 0.01 to 1,000,000, at most 2 decimals. */
  amount: number;
  description?: string;
  /** Reusing one returns the existing charge instead of creating another. */
  external_id?: string;
  /** Seconds, 60 to 604800; the service default is 3600. */
  expires_in?: number;
  customer?: Customer;
  metadata?: Metadata;
  /**
   * An active product of the store that this charge sells (API 1.1.0): its sale carries `product_id`
   * and the delivery e-mail uses the product's subject, body and access link.
   */
  product_id?: string;
  /** Campaign parameters to carry to the charge, its sale and their events (API 1.2.0). */
  tracking?: Tracking;
}

export interface PixChargeListParams extends ListParams {
  status?: PixChargeStatus;
}
