import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { type DbBool, toBool } from '../../platform/db/schema.js';
import { Nullable, Timestamp } from '../../platform/http/schemas.js';
import { fromCents } from '../../platform/values/money.js';
import { nowIso } from '../../platform/values/time.js';
import { Customer } from '../kernel/customer.js';
import { Metadata } from '../kernel/metadata.js';
import { TrackingSchema, parseTracking } from '../kernel/tracking.js';

export type PixChargeStatus = 'pending' | 'paid' | 'expired' | 'canceled';

export interface PixChargesTable {
  id: string;
  store_id: string;
  livemode: DbBool;
  /** As last written; a `pending` row past `expires_at` is already `expired` to readers. */
  status: PixChargeStatus;
  amount_cents: number;
  description: string | null;
  external_id: string | null;
  customer: string | null;
  metadata: string | null;
  txid: string;
  copy_paste: string;
  /** Rendered once at creation: ~1 KB of base64, against ~2-3 ms of CPU on every read of a list. */
  qr_code_base64: string;
  expires_at: string;
  paid_at: string | null;
  created_at: string;
  /** Live charges: when the reconciler next asks the PSP about it; null once nothing is left to ask. */
  next_check_at: string | null;
  canceled_at: string | null;
  /** The product sold (migration 0009); optional so rows built before it still type. */
  product_id?: string | null;
  /** JSON Tracking (migration 0015; the database defaults it to `{}`). */
  tracking?: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    pix_charges: PixChargesTable;
  }
}

export const PIX_CHARGE_ID_PATTERN = /^pix_[0-9A-Za-z]{24}$/;

export const PixChargeStatus = Type.Union([
  Type.Literal('pending'),
  Type.Literal('paid'),
  Type.Literal('expired'),
  Type.Literal('canceled'),
]);

export const PixCharge = Type.Object(
  {
    object: Type.Literal('pix_charge'),
    id: Type.String({ example: 'pix_4mZ0b2kqP1sXw4TnYc7HaB9d' }),
    status: PixChargeStatus,
    amount: Type.Number({ example: 22.5 }),
    description: Nullable(Type.String()),
    external_id: Nullable(Type.String()),
    customer: Nullable(Customer),
    metadata: Nullable(Metadata),
    product_id: Nullable(
      Type.String({ format: 'uuid', description: 'The product sold, if the charge names one.' }),
    ),
    tracking: TrackingSchema,
    expires_at: Timestamp,
    paid_at: Nullable(Timestamp),
    canceled_at: Nullable(Timestamp),
    livemode: Type.Boolean(),
    created_at: Timestamp,
    pix: Type.Object({
      copy_paste: Type.String({ description: 'EMV BR Code ("Pix copia e cola"), CRC16 included.' }),
      qr_code_base64: Type.String({
        description: 'PNG of the QR code of copy_paste, base64 without data-URL prefix.',
      }),
      txid: Type.String(),
    }),
  },
  { $id: 'PixCharge', title: 'Pix charge' },
);

export type PixCharge = Static<typeof PixCharge>;

/** The status a reader sees: expiry takes effect at `expires_at`, before the sweeper writes it. */
export function effectiveStatus(
  row: Pick<PixChargesTable, 'status' | 'expires_at'>,
  now: string = nowIso(),
): PixChargeStatus {
  return row.status === 'pending' && row.expires_at <= now ? 'expired' : row.status;
}

export function toPixCharge(row: PixChargesTable, now: string = nowIso()): PixCharge {
  return {
    object: 'pix_charge',
    id: row.id,
    status: effectiveStatus(row, now),
    amount: fromCents(row.amount_cents),
    description: row.description,
    external_id: row.external_id,
    customer: row.customer === null ? null : (JSON.parse(row.customer) as Customer),
    metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Metadata),
    product_id: row.product_id ?? null,
    tracking: parseTracking(row.tracking),
    expires_at: row.expires_at,
    paid_at: row.paid_at,
    canceled_at: row.canceled_at,
    livemode: toBool(row.livemode),
    created_at: row.created_at,
    pix: { copy_paste: row.copy_paste, qr_code_base64: row.qr_code_base64, txid: row.txid },
  };
}
