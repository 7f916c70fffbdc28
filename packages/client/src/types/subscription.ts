import type { PixCharge } from './pix.js';
import type { Customer, ListParams, Timestamp } from './shared.js';

/** How often a recurring product is billed (API 1.2.0). */
export type Recorrencia = 'semanal' | 'mensal' | 'trimestral' | 'semestral' | 'anual';

/** Whether a failed cycle charge is retried: up to 3 times within 7 days, or never. */
export type RetryPolicy = 'none' | '3_in_7_days';

/**
 * `pending`: waiting for the first payment and authorisation; `active`; `past_due`: a cycle's
 * charge failed and retries are left; `canceled`; `expired`: never authorised.
 */
export type SubscriptionStatus = 'pending' | 'active' | 'past_due' | 'canceled' | 'expired';

export type SubscriptionCancelReason = 'buyer' | 'merchant' | 'psp' | 'payment_failed';

/** A subscription to a recurring product, billed through Pix Automático (API 1.2.0). */
export interface Subscription {
  object: 'subscription';
  /** Starts with `sub_`. */
  id: string;
  status: SubscriptionStatus;
  product_id: string;
  customer: Customer;
  /** BRL billed each cycle, copied from the product when the subscription was created. */
  amount: number;
  recorrencia: Recorrencia;
  retry_policy: RetryPolicy;
  /** Cycles paid so far: 0 while pending, 1 after the first payment. */
  cycle: number;
  /** `YYYY-MM-DD` in the store's timezone; null while pending. */
  current_period_start: string | null;
  /** The first day after the period paid for: the next cycle's due date. */
  current_period_end: string | null;
  /** When the next cycle is due (its charge is sent 5 days earlier); null when nothing more is billed. */
  next_charge_date: string | null;
  cancel_reason: SubscriptionCancelReason | null;
  canceled_at: Timestamp | null;
  livemode: boolean;
  created_at: Timestamp;
  /** The purchase-page order that created it, if any. */
  order_id: string | null;
  /** The charge whose code pays the first cycle and authorises the rest. */
  first_charge_id: string;
  /** Attribution it was created with (`utm_*`, `src`, `sck`, `fbclid`, `gclid`). */
  tracking: Record<string, string>;
  /** The Pix Automático authorisation. */
  pix: { id_rec: string; journey: 'JORNADA_3' } | null;
}

/** What `subscriptions.create` answers: the subscription and the charge to show the buyer. */
export interface CreatedSubscription extends Subscription {
  /** Its `pix.copy_paste` and QR pay the first cycle and authorise the recurrence in one scan. */
  first_charge: PixCharge;
}

export type SubscriptionTrackingKey =
  | 'utm_source'
  | 'utm_medium'
  | 'utm_campaign'
  | 'utm_term'
  | 'utm_content'
  | 'src'
  | 'sck'
  | 'fbclid'
  | 'gclid';

export interface SubscriptionCreateParams {
  /** An active product of the store with a `recorrencia`. */
  product_id: string;
  /** Name and CPF/CNPJ are required: Pix Automático names its payer. */
  customer: Customer & { name: string; document: string };
  tracking?: Partial<Record<SubscriptionTrackingKey, string>>;
}

export interface SubscriptionListParams extends ListParams {
  status?: SubscriptionStatus;
  product_id?: string;
}
