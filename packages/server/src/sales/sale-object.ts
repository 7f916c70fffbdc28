import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { type DbBool, toBool } from '../db/schema.js';
import { Nullable, Timestamp } from '../http/schemas.js';
import { DeliveryEmail, toDeliveryEmail } from '../email/delivery-email-object.js';
import type { SaleDeliveryEmailColumns } from '../email/delivery-email-object.js';
import { Customer } from '../pix/customer.js';
import { fromCents } from '../shared/money.js';

export type SaleStatus = 'approved' | 'refunded';

export interface SalesTable extends SaleDeliveryEmailColumns {
  id: string;
  store_id: string;
  livemode: DbBool;
  status: SaleStatus;
  amount_cents: number;
  /** `free` when a purchase-page order cost nothing and completed without a charge. */
  payment_method: 'pix' | 'free';
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
}

declare module '../db/schema.js' {
  interface Tables {
    sales: SalesTable;
  }
}

export const SaleItem = Type.Object({
  product_id: Type.String({ format: 'uuid' }),
  nome: Type.String(),
  amount: Type.Number({ description: 'BRL paid for this item (the main product after any coupon).' }),
  kind: Type.Union([Type.Literal('product'), Type.Literal('order_bump')]),
});
export type SaleItem = Static<typeof SaleItem>;

export const SaleCoupon = Type.Object({
  code: Type.String(),
  discount: Type.Number({ description: 'BRL taken off the main product.' }),
});
export type SaleCoupon = Static<typeof SaleCoupon>;

export const Sale = Type.Object(
  {
    object: Type.Literal('sale'),
    id: Type.String({ format: 'uuid' }),
    status: Type.Union([Type.Literal('approved'), Type.Literal('refunded')]),
    amount: Type.Number({ example: 22.5 }),
    payment_method: Type.Union([Type.Literal('pix'), Type.Literal('free')], {
      description: '`free` when a purchase-page order totalled 0 and completed without a charge.',
    }),
    pix_charge_id: Nullable(Type.String()),
    product_id: Nullable(Type.String({ format: 'uuid' })),
    customer: Nullable(Customer),
    items: Type.Array(SaleItem, {
      description: 'What a purchase-page order bought; empty for a charge created through the API.',
    }),
    coupon: Nullable(SaleCoupon),
    livemode: Type.Boolean(),
    created_at: Timestamp,
    refunded_at: Nullable(Timestamp),
    delivery_email: Nullable(DeliveryEmail),
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
    product_id: row.product_id,
    customer: row.customer === null ? null : (JSON.parse(row.customer) as Customer),
    items: row.items === null ? [] : (JSON.parse(row.items) as SaleItem[]),
    coupon: row.coupon === null ? null : (JSON.parse(row.coupon) as SaleCoupon),
    livemode: toBool(row.livemode),
    created_at: row.created_at,
    refunded_at: row.refunded_at,
    delivery_email: toDeliveryEmail(row),
  };
}
