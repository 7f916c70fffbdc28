import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { type DbBool, toBool } from '../../platform/db/schema.js';
import { Nullable, Timestamp } from '../../platform/http/schemas.js';
import { DeliveryEmail, toDeliveryEmail } from './delivery-email-object.js';
import type { SaleDeliveryEmailColumns } from './delivery-email-object.js';
import { Customer } from '../kernel/customer.js';
import { fromCents } from '../../platform/values/money.js';
import { TrackingSchema, parseTracking } from '../kernel/tracking.js';
import { SaleCoupon, SaleItem } from '../kernel/line-items.js';

/** `charged_back` when the buyer disputed a card payment and the PSP took the money back (API 1.3.0). */
export type SaleStatus = 'approved' | 'refunded' | 'charged_back';

export interface SalesTable extends SaleDeliveryEmailColumns {
  id: string;
  store_id: string;
  livemode: DbBool;
  status: SaleStatus;
  amount_cents: number;
  /** `free` when a purchase-page order cost nothing and completed without a charge. */
  payment_method: 'pix' | 'free' | 'card';
  pix_charge_id: string | null;
  /** The paying Pix's end-to-end id: what a refund (`devolucao`) names. Internal. */
  pix_end_to_end_id: string | null;
  product_id: string | null;
  customer: string | null;
  /** JSON array of SaleItem; null for sales of charges made through the API (no items known). */
  items: string | null;
  /** JSON SaleCoupon, or null. */
  coupon: string | null;
  created_at: string;
  refunded_at: string | null;
  /** Live refunds (API 1.1.0): null until a refund is asked for. */
  refund_status: RefundStatus | null;
  /** Our `devolucao` id at the PSP, so a retried request does not refund twice. */
  refund_id: string | null;
  refund_requested_at: string | null;
  refund_failure_reason: string | null;
  /** When the reconciler next asks the PSP about a pending refund. */
  refund_next_check_at: string | null;
  /** JSON Tracking, from its order or charge (migration 0015; the database defaults it to `{}`). */
  tracking?: string;
  /** 1 when its order was paid after being abandoned (migration 0015; defaults to 0). */
  recovered?: DbBool;
  /** The subscription this sale bills (API 1.2.0), and which of its cycles (1 for the first payment). */
  subscription_id: string | null;
  cycle: number | null;
  /** A card sale's payment and how many installments the buyer chose (API 1.3.0, migration 0029). */
  card_payment_id?: string | null;
  installments?: number | null;
  charged_back_at?: string | null;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

/** The refund columns of a sale nobody asked to refund yet. */
export const NO_REFUND = {
  refund_status: null,
  refund_id: null,
  refund_requested_at: null,
  refund_failure_reason: null,
  refund_next_check_at: null,
} as const;

declare module '../../platform/db/schema.js' {
  interface Tables {
    sales: SalesTable;
  }
}

export const Sale = Type.Object(
  {
    object: Type.Literal('sale'),
    id: Type.String({ format: 'uuid' }),
    status: Type.Union([Type.Literal('approved'), Type.Literal('refunded'), Type.Literal('charged_back')], {
      description:
        '`charged_back` (API 1.3.0) when the buyer disputed a card payment and its PSP took the money back.',
    }),
    amount: Type.Number({ example: 22.5 }),
    payment_method: Type.Union([Type.Literal('pix'), Type.Literal('free'), Type.Literal('card')], {
      description:
        '`free` when a purchase-page order totalled 0 and completed without a charge; `card` (API 1.3.0) when paid by card.',
    }),
    pix_charge_id: Nullable(Type.String()),
    card_payment_id: Nullable(
      Type.String({ description: 'The card payment that paid this sale (API 1.3.0); null otherwise.' }),
    ),
    installments: Nullable(
      Type.Integer({
        minimum: 1,
        maximum: 12,
        description: 'How many installments the buyer chose for a card sale (API 1.3.0); null otherwise.',
      }),
    ),
    product_id: Nullable(Type.String({ format: 'uuid' })),
    customer: Nullable(Customer),
    items: Type.Array(SaleItem, {
      description: 'What a purchase-page order bought; empty for a charge created through the API.',
    }),
    coupon: Nullable(SaleCoupon),
    tracking: TrackingSchema,
    recovered: Type.Boolean({
      description: 'Its purchase-page order was paid after being abandoned (API 1.2.0).',
    }),
    subscription_id: Nullable(
      Type.String({ description: 'The subscription this sale bills (API 1.2.0); null for a one-off sale.' }),
    ),
    cycle: Nullable(
      Type.Integer({
        minimum: 1,
        description: "Which of its subscription's cycles this sale pays: 1 for the first payment.",
      }),
    ),
    livemode: Type.Boolean(),
    created_at: Timestamp,
    refunded_at: Nullable(Timestamp),
    delivery_email: Nullable(DeliveryEmail),
    refund: Nullable(
      Type.Object(
        {
          status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
          requested_at: Timestamp,
          failure_reason: Nullable(Type.String()),
        },
        {
          description:
            'The refund asked for (API 1.1.0): a live refund is `pending` until the PSP settles it; null before any refund.',
        },
      ),
    ),
  },
  { $id: 'Sale', title: 'Sale' },
);

export type Sale = Static<typeof Sale>;

export function toSale(row: SalesTable): Sale {
  return {
    object: 'sale',
    id: row.id,
    status: row.status,
    amount: fromCents(row.amount_cents),
    payment_method: row.payment_method,
    pix_charge_id: row.pix_charge_id,
    card_payment_id: row.card_payment_id ?? null,
    installments: row.installments ?? null,
    product_id: row.product_id,
    customer: row.customer === null ? null : (JSON.parse(row.customer) as Customer),
    items: row.items === null ? [] : (JSON.parse(row.items) as SaleItem[]),
    coupon: row.coupon === null ? null : (JSON.parse(row.coupon) as SaleCoupon),
    tracking: parseTracking(row.tracking),
    recovered: row.recovered === 1,
    subscription_id: row.subscription_id ?? null,
    cycle: row.cycle ?? null,
    livemode: toBool(row.livemode),
    created_at: row.created_at,
    refunded_at: row.refunded_at,
    delivery_email: toDeliveryEmail(row),
    refund:
      row.refund_status === null
        ? null
        : {
            status: row.refund_status,
            requested_at: row.refund_requested_at!,
            failure_reason: row.refund_failure_reason,
          },
  };
}
