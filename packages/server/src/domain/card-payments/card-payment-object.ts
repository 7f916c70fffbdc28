import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { type DbBool, toBool } from '../../platform/db/schema.js';
import { Nullable, Timestamp } from '../../platform/http/schemas.js';
import { fromCents } from '../../platform/values/money.js';
import { Customer } from '../kernel/customer.js';
import { Metadata } from '../kernel/metadata.js';
import { TrackingSchema, parseTracking } from '../kernel/tracking.js';
import {
  CARD_DECLINE_CODES,
  CARD_PAYMENT_STATUSES,
  DECLINE_MESSAGES,
  type CardDeclineCode,
  type CardPaymentStatus,
} from '../kernel/card-outcome.js';

export type CardProviderColumn = 'mercadopago' | 'pagarme' | 'simulated';

export interface CardPaymentsTable {
  id: string;
  store_id: string;
  livemode: DbBool;
  status: CardPaymentStatus;
  provider: CardProviderColumn;
  /** The goods' price; the buyer's interest is in `total_amount_cents`. */
  amount_cents: number;
  installments: number;
  installment_amount_cents: number;
  total_amount_cents: number;
  card_brand: string | null;
  card_last4: string | null;
  card_exp_month: number | null;
  card_exp_year: number | null;
  /** JSON Customer (name, email and document). */
  customer: string;
  description: string | null;
  external_id: string | null;
  /** JSON metadata, or null. */
  metadata: string | null;
  /** JSON Tracking (`{}` when none). */
  tracking: string;
  product_id: string | null;
  /** The purchase-page order it pays, when it came from the page. */
  order_id: string | null;
  decline_code: CardDeclineCode | null;
  decline_provider_code: string | null;
  /** JSON `{url, creq}`: Mercado Pago's `three_ds_info` while its challenge waits. Internal. */
  challenge: string | null;
  next_action_url: string | null;
  action_token_hash: string | null;
  provider_payment_id: string | null;
  provider_charge_id: string | null;
  authorization_code: string | null;
  sale_id: string | null;
  next_check_at: string | null;
  created_at: string;
  approved_at: string | null;
  declined_at: string | null;
  refunded_at: string | null;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    card_payments: CardPaymentsTable;
  }
}

export const CARD_PAYMENT_ID_PATTERN = /^card_[A-Za-z0-9]{10,40}$/;

export const CardPaymentStatusSchema = Type.Unsafe<CardPaymentStatus>({
  type: 'string',
  enum: [...CARD_PAYMENT_STATUSES],
  description:
    '`requires_action` (3-D Secure waits for the buyer), `processing` (the PSP decides later), `approved`, `declined`, `refunded`.',
});

export const CardDeclineCodeSchema = Type.Unsafe<CardDeclineCode>({
  type: 'string',
  enum: [...CARD_DECLINE_CODES],
});

export const CardPayment = Type.Object(
  {
    object: Type.Literal('card_payment'),
    id: Type.String({ example: 'card_3kTq9cV2mWx8YpLr0aZf' }),
    status: CardPaymentStatusSchema,
    amount: Type.Number({ description: "The goods' price, BRL.", example: 997 }),
    installments: Type.Integer({ minimum: 1, maximum: 12 }),
    installment_amount: Type.Number({ description: 'Each installment, BRL, interest included.' }),
    total_amount: Type.Number({ description: 'What the buyer pays in all, BRL, interest included.' }),
    card: Nullable(
      Type.Object({
        brand: Type.String({ example: 'visa' }),
        last4: Type.String({ example: '4242' }),
        exp_month: Nullable(Type.Integer({ minimum: 1, maximum: 12 })),
        exp_year: Nullable(Type.Integer()),
      }),
    ),
    customer: Customer,
    description: Nullable(Type.String()),
    external_id: Nullable(Type.String()),
    metadata: Nullable(Metadata),
    tracking: TrackingSchema,
    decline: Nullable(
      Type.Object({
        code: CardDeclineCodeSchema,
        message: Type.String(),
        provider_code: Nullable(Type.String({ description: "The PSP's own code, as it sent it." })),
      }),
    ),
    next_action: Nullable(
      Type.Object({
        type: Type.Literal('three_d_secure'),
        url: Type.String({ description: 'Send the buyer here to authenticate the card.' }),
      }),
    ),
    provider: Type.Union([Type.Literal('mercadopago'), Type.Literal('pagarme'), Type.Literal('simulated')]),
    authorization_code: Nullable(Type.String()),
    sale_id: Nullable(Type.String({ format: 'uuid' })),
    livemode: Type.Boolean(),
    created_at: Timestamp,
    approved_at: Nullable(Timestamp),
    declined_at: Nullable(Timestamp),
  },
  { $id: 'CardPayment', title: 'CardPayment' },
);

export type CardPayment = Static<typeof CardPayment>;

export function toCardPayment(row: CardPaymentsTable): CardPayment {
  return {
    object: 'card_payment',
    id: row.id,
    status: row.status,
    amount: fromCents(row.amount_cents),
    installments: row.installments,
    installment_amount: fromCents(row.installment_amount_cents),
    total_amount: fromCents(row.total_amount_cents),
    card:
      row.card_brand === null || row.card_last4 === null
        ? null
        : {
            brand: row.card_brand,
            last4: row.card_last4,
            exp_month: row.card_exp_month,
            exp_year: row.card_exp_year,
          },
    customer: JSON.parse(row.customer) as Customer,
    description: row.description,
    external_id: row.external_id,
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Metadata),
    tracking: parseTracking(row.tracking),
    decline:
      row.decline_code === null
        ? null
        : {
            code: row.decline_code,
            message: DECLINE_MESSAGES[row.decline_code],
            provider_code: row.decline_provider_code,
          },
    next_action:
      row.status === 'requires_action' && row.next_action_url !== null
        ? { type: 'three_d_secure', url: row.next_action_url }
        : null,
    provider: row.provider,
    authorization_code: row.authorization_code,
    sale_id: row.sale_id,
    livemode: toBool(row.livemode),
    created_at: row.created_at,
    approved_at: row.approved_at,
    declined_at: row.declined_at,
  };
}
