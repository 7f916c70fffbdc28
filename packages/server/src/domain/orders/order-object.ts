import { createHash } from 'node:crypto';
import { pooledRandomBytes } from '../../platform/values/random-pool.js';
import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { type DbBool, toBool } from '../../platform/db/schema.js';
import { Nullable, Timestamp } from '../../platform/http/schemas.js';
import { Customer } from '../kernel/customer.js';
import { SaleCoupon, SaleItem } from '../kernel/line-items.js';
import { fromCents } from '../../platform/values/money.js';
import { TrackingSchema, parseTracking } from '../kernel/tracking.js';
import type { OrderStatus } from '../kernel/order-status.js';

/**
 * `abandoned`: unpaid 30 minutes after it was placed (it can still be paid: the buyer renews the Pix);
 * `canceled`: the store canceled its Pix.
 */

export type RecoveryEmailStatus = 'pending' | 'sent' | 'failed' | 'skipped';

/** A buyer's order on a purchase page: what they chose, who they are, and the charge paying it. */
export interface OrdersTable {
  id: string;
  store_id: string;
  /** SHA-256 (hex) of the order token: the URL's token is the key, and only this finds the order. */
  token_hash: string;
  /** The token sealed with the secret box, for links made later (events, the recovery e-mail). */
  token_sealed: string | null;
  livemode: DbBool;
  status: OrderStatus;
  product_id: string;
  /** JSON SaleItem[]: the main product (after the coupon) and the bump when taken. */
  items: string;
  coupon_id: string | null;
  /** JSON SaleCoupon, or null. */
  coupon: string | null;
  amount_cents: number;
  /** JSON Customer. */
  customer: string;
  /** JSON Tracking: the campaign parameters of the page's URL. */
  tracking: string;
  /** The current charge; a new Pix for an expired order replaces it. Null for a free order. */
  pix_charge_id: string | null;
  /** How the buyer chose to pay (migration 0029): null for orders placed before cards (Pix). */
  payment_method: 'pix' | 'card' | null;
  /** The card payment the buyer made from the page; the order's Pix replaces it after a decline. */
  card_payment_id: string | null;
  /** Until when this unpaid order holds one of its coupon's limited redemptions. */
  hold_until: string;
  sale_id: string | null;
  created_at: string;
  paid_at: string | null;
  abandoned_at: string | null;
  /** 1 when it was paid after being abandoned. */
  recovered: DbBool;
  /** Null while no recovery e-mail is due (the store's is off, or the order was never abandoned). */
  recovery_email_status: RecoveryEmailStatus | null;
  recovery_email_sent_at: string | null;
  /** Why the last attempt did not go out; internal (logs and the merchant's dashboard). */
  recovery_email_last_error: string | null;
  /** The buyer's request as the server saw it, for server-side conversion events; internal. */
  client_ip: string | null;
  user_agent: string | null;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    orders: OrdersTable;
  }
}

export const ORDER_TOKEN_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** 128 random bits, URL-safe (22 characters). */
export function newOrderToken(): string {
  return pooledRandomBytes(16).toString('base64url');
}

export function hashOrderToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export const orderItems = (row: Pick<OrdersTable, 'items'>): SaleItem[] =>
  JSON.parse(row.items) as SaleItem[];
export const orderCoupon = (row: Pick<OrdersTable, 'coupon'>): SaleCoupon | null =>
  row.coupon === null ? null : (JSON.parse(row.coupon) as SaleCoupon);

export const OrderStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('paid'),
  Type.Literal('abandoned'),
  Type.Literal('canceled'),
]);

export const Order = Type.Object(
  {
    object: Type.Literal('order'),
    id: Type.String({ format: 'uuid' }),
    status: Type.Unsafe<OrderStatus>({
      ...OrderStatusSchema,
      description:
        '`pending`: waiting for its Pix; `paid`; `abandoned`: unpaid 30 minutes after it was placed (still payable: the buyer can renew the Pix on the order page); `canceled`: the store canceled its Pix.',
    }),
    product_id: Type.String({ format: 'uuid' }),
    items: Type.Array(SaleItem),
    coupon: Nullable(SaleCoupon),
    amount: Type.Number({ example: 109.9 }),
    customer: Customer,
    tracking: TrackingSchema,
    pix_charge_id: Nullable(Type.String({ description: 'The current charge: a renewed Pix replaces it.' })),
    sale_id: Nullable(Type.String({ format: 'uuid' })),
    recovered: Type.Boolean({ description: 'Paid after it was abandoned.' }),
    recovery_email: Nullable(
      Type.Object(
        {
          status: Type.Union(
            [Type.Literal('pending'), Type.Literal('sent'), Type.Literal('failed'), Type.Literal('skipped')],
            {
              description:
                '`pending`: waiting for its time (abandonment + the store’s delay) or a retry; `sent`; `failed`: refused permanently or out of retries; `skipped`: not sent, because the service has no SMTP_URL, a test-mode order’s address is not in STOREFRONT_TEST_MAIL_ALLOW, or the order was paid or canceled first.',
            },
          ),
          sent_at: Nullable(Timestamp),
        },
        {
          description:
            'The abandoned-order e-mail; null when none is due (the store’s is off, or the order was never abandoned).',
        },
      ),
    ),
    created_at: Timestamp,
    paid_at: Nullable(Timestamp),
    abandoned_at: Nullable(Timestamp),
  },
  { $id: 'Order', title: 'Order' },
);

export type Order = Static<typeof Order>;

export function toOrder(row: OrdersTable): Order {
  return {
    object: 'order',
    id: row.id,
    status: row.status,
    product_id: row.product_id,
    items: orderItems(row),
    coupon: orderCoupon(row),
    amount: fromCents(row.amount_cents),
    customer: JSON.parse(row.customer) as Customer,
    tracking: parseTracking(row.tracking),
    pix_charge_id: row.pix_charge_id,
    sale_id: row.sale_id,
    recovered: toBool(row.recovered),
    recovery_email:
      row.recovery_email_status === null
        ? null
        : { status: row.recovery_email_status, sent_at: row.recovery_email_sent_at },
    created_at: row.created_at,
    paid_at: row.paid_at,
    abandoned_at: row.abandoned_at,
  };
}
