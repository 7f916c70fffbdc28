import type { Tracking } from './order.js';
import type { Customer, ListParams, Metadata, Timestamp } from './shared.js';

/**
 * `requires_action`: 3-D Secure waits for the buyer (see `next_action`); `processing`: the PSP
 * decides later; `approved` (a sale exists); `declined` (see `decline`); `refunded`.
 */
export type CardPaymentStatus = 'requires_action' | 'processing' | 'approved' | 'declined' | 'refunded';

/** The normalised reason of a decline; the PSP's own code is kept in `decline.provider_code`. */
export type CardDeclineCode =
  | 'insufficient_funds'
  | 'invalid_cvv'
  | 'invalid_expiry'
  | 'invalid_number'
  | 'call_issuer'
  | 'card_disabled'
  | 'fraud_suspected'
  | 'authentication_failed'
  | 'duplicate'
  | 'max_attempts'
  | 'issuer_declined'
  | 'processing_error';

/** Where the payment went: the store's PSP, or the simulated provider of test mode. */
export type CardProvider = 'mercadopago' | 'pagarme' | 'simulated';

/** What the card looks like; never its number. */
export interface CardDetails {
  /** As the PSP names it, e.g. `visa`, `master`. */
  brand: string;
  last4: string;
  exp_month: number | null;
  exp_year: number | null;
}

export interface CardDecline {
  code: CardDeclineCode;
  /** The code in plain English. */
  message: string;
  /** The PSP's own code, as it sent it. */
  provider_code: string | null;
}

/** A card payment in installments, through the store's PSP (API 1.3.0). */
export interface CardPayment {
  object: 'card_payment';
  /** Starts with `card_`. */
  id: string;
  status: CardPaymentStatus;
  /** The goods' price, BRL: what a sale counts. */
  amount: number;
  /** 1 to 12. */
  installments: number;
  /** Each installment, BRL, interest included. */
  installment_amount: number;
  /** What the buyer pays in all, BRL, interest included. */
  total_amount: number;
  /** Null until the PSP has told which card it was. */
  card: CardDetails | null;
  customer: Customer;
  description: string | null;
  external_id: string | null;
  metadata: Metadata | null;
  tracking: Tracking;
  /** Why it was declined; null unless `status` is `declined`. */
  decline: CardDecline | null;
  /** While `requires_action`: send the buyer to `url` to authenticate the card (3-D Secure). */
  next_action: { type: 'three_d_secure'; url: string } | null;
  provider: CardProvider;
  authorization_code: string | null;
  /** The sale an approved payment created. */
  sale_id: string | null;
  livemode: boolean;
  created_at: Timestamp;
  approved_at: Timestamp | null;
  declined_at: Timestamp | null;
}

export interface CardPaymentCreateParams {
  /** The goods' price, BRL, 1.00 to 1,000,000, at most 2 decimals; interest is added on top. */
  amount: number;
  /** 1 (the default) to the store's maximum; must be one of `installments({ amount })`'s options. */
  installments?: number;
  card: {
    /**
     * The single-use token the PSP's script made in the buyer's browser (the card number never
     * reaches your server). Test mode without a PSP: `tok_test_approved`, `tok_test_declined_<code>`,
     * `tok_test_3ds` or `tok_test_processing`.
     */
    token: string;
    /** The brand the PSP's script reported (Mercado Pago's `payment_method_id`). */
    brand?: string;
    /** The issuer the PSP's script reported (Mercado Pago). */
    issuer_id?: string;
  };
  /** Name, e-mail and CPF/CNPJ are required: the PSPs' anti-fraud checks ask for them. */
  customer: Customer & { name: string; email: string; document: string };
  description?: string;
  /** Your own id, unique per store and mode: reusing one answers the existing payment (200) and charges nothing. */
  external_id?: string;
  metadata?: Metadata;
  tracking?: Tracking;
  /** An active product of the store that this payment sells: its sale carries `product_id`. */
  product_id?: string;
}

export interface CardPaymentListParams extends ListParams {
  status?: CardPaymentStatus;
  external_id?: string;
}

/** One way to split an amount. */
export interface InstallmentOption {
  installments: number;
  /** Each installment, BRL, interest included. */
  installment_amount: number;
  /** What the buyer pays in all, BRL. */
  total_amount: number;
  interest_free: boolean;
}

/** The installment options a store offers for an amount (API 1.3.0). */
export interface InstallmentOptions {
  object: 'installment_options';
  amount: number;
  /** From 1x up, only those whose installment reaches the store's minimum (1x always). */
  options: InstallmentOption[];
}

export interface InstallmentOptionsParams {
  /** BRL. */
  amount: number;
  /** The card's first 6 to 8 digits, as the PSP's script gives them: Mercado Pago's options depend on it. */
  bin?: string;
}

export interface CardPaymentSimulate3dsParams {
  /** `authenticated` approves the payment; `failed` declines it with `authentication_failed`. */
  result: 'authenticated' | 'failed';
}

export interface CardPaymentSimulateSettlementParams {
  /** `declined` declines it with `issuer_declined`. */
  result: 'approved' | 'declined';
}
