import type { CardDeclineCode } from '../kernel/card-outcome.js';
import type { InstallmentPolicy } from '../kernel/installment-policy.js';

/**
 * What the card payments code needs from a card PSP. One adapter per PSP (Mercado Pago's Checkout
 * API, Pagar.me v5) and the simulated one of test mode, each behind this port: the card never
 * reaches us, only the single-use token the PSP's own script made in the buyer's browser.
 *
 * - `createPayment` ≈ Mercado Pago `POST /v1/payments` / Pagar.me `POST /orders`, always with the
 *   derived idempotency key, so a retried request never charges twice.
 * - `getPayment` ≈ `GET /v1/payments/{id}` / `GET /orders/{id}`: notifications and the reconciler
 *   read the payment back before anything changes (a notification is never trusted).
 * - `refund` ≈ `POST /v1/payments/{id}/refunds` / `DELETE /charges/{charge_id}`.
 * - `installmentOptions`: Mercado Pago asks its own API for the amount and BIN; the others answer
 *   the store's price table.
 *
 * Failures (5xx, timeouts, TLS, malformed answers) throw `ProviderError` (502 `provider_error`);
 * a decline is an outcome, never an error.
 */
export type CardProviderName = 'mercadopago' | 'pagarme' | 'simulated';

export interface CardProvider {
  readonly name: CardProviderName;
  /** The browser-side key the page's script needs (Mercado Pago public key, Pagar.me `pk_…`); null for simulated. */
  readonly publicKey: string | null;
  /**
   * Where this PSP sends its notifications for the store (`<public URL>/callbacks/card/<token>`),
   * set by whoever builds the provider from the store's settings; null when it sends none.
   */
  readonly notificationUrl?: string | null;
  createPayment(request: CardChargeRequest): Promise<CardOutcome>;
  getPayment(ref: CardPspRef): Promise<CardOutcome>;
  refund(ref: CardPspRef, request: CardRefundRequest): Promise<CardRefundOutcome>;
  installmentOptions(query: InstallmentQuery): Promise<InstallmentOption[]>;
  /**
   * Reads a notification the PSP sent to `/callbacks/card/<token>`: the PSP's id of the payment it
   * is about (read back with `getPayment` before anything changes), `forged` when a signature is
   * configured and does not verify, or null when it names no payment (another topic).
   */
  readNotification(notification: CardNotification): CardNotificationRef | 'forged' | null;
  close(): Promise<void>;
}

/** How a payment is known at its PSP. */
export interface CardPspRef {
  /** Mercado Pago's payment id; Pagar.me's order id (`or_…`); simulated: our own id. */
  pspId: string;
  /** Pagar.me's charge id (`ch_…`), what a refund names; null elsewhere. */
  pspChargeId: string | null;
}

export interface CardPayer {
  name: string;
  email: string;
  /** Bare digits. */
  document: string;
  documentType: 'CPF' | 'CNPJ';
  /** Digits with an optional +, when the buyer gave one. */
  phone: string | null;
}

export interface CardChargeRequest {
  /** Our `card_…` id: Mercado Pago `external_reference`, Pagar.me order `code`. */
  paymentId: string;
  /** Derived from the store and the request's Idempotency-Key (`X-Idempotency-Key` / `Idempotency-Key`). */
  idempotencyKey: string;
  /** The goods' price, cents. */
  amountCents: number;
  installments: number;
  /** What the buyer pays in all, interest included (Pagar.me's `amount`), from the store's table. */
  totalCents: number;
  token: string;
  /** The brand the page's script found (Mercado Pago `payment_method_id`: `visa`, `master`…). */
  brand: string | null;
  /** Mercado Pago `issuer_id`, when the page's script gave one. */
  issuerId: string | null;
  payer: CardPayer;
  description: string | null;
  /** The store's name: the PSP cuts it to its own limit (Pagar.me 13 characters). */
  statementDescriptor: string;
  /** `<public URL>/callbacks/card/<token>` when the service has a public URL; null otherwise. */
  notificationUrl: string | null;
  /** What is sold, for PSPs that list items (Pagar.me `items`): at least one. */
  items: Array<{ code: string; description: string; amountCents: number; quantity: number }>;
}

export interface CardDetails {
  brand: string;
  last4: string;
  expMonth: number | null;
  expYear: number | null;
}

/** A payment as the PSP tells it now. */
export interface CardOutcome {
  pspId: string;
  pspChargeId: string | null;
  status: 'requires_action' | 'processing' | 'approved' | 'declined' | 'refunded' | 'charged_back';
  /** For `declined`: the normalised code and the PSP's own (`cc_rejected_insufficient_amount`, `51`…). */
  decline: { code: CardDeclineCode; providerCode: string | null } | null;
  card: CardDetails | null;
  authorizationCode: string | null;
  /** For `requires_action` at Mercado Pago: `three_ds_info`, what the challenge page posts. */
  challenge: { url: string; creq: string } | null;
  /**
   * What the PSP says the buyer pays, when it computes the interest itself (Mercado Pago's
   * `transaction_details.installment_amount` and `total_paid_amount`); absent when our table decided.
   */
  charged?: { installmentCents: number; totalCents: number } | undefined;
}

export interface CardRefundRequest {
  /** Derived from the refund's own id, so a retried refund does not refund twice. */
  idempotencyKey: string;
  amountCents: number;
}

export interface CardRefundOutcome {
  status: 'succeeded' | 'pending' | 'failed';
  reason: string | null;
}

export type { InstallmentPolicy };

export interface InstallmentQuery {
  amountCents: number;
  /** The card's first 6 to 8 digits, when known (Mercado Pago's options depend on it). */
  bin: string | null;
  policy: InstallmentPolicy;
}

export interface InstallmentOption {
  installments: number;
  installmentCents: number;
  totalCents: number;
  interestFree: boolean;
}

/** A PSP notification as it arrived: query, lower-cased headers and the raw body. */
export interface CardNotification {
  query: Record<string, string>;
  headers: Record<string, string>;
  body: string;
}

export interface CardNotificationRef {
  pspId: string;
}
