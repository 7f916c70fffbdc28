import type { Kysely } from 'kysely';
import type { CardPaymentsTable } from '../domain/card-payments/card-payment-object.js';
import { findCardPayment } from '../domain/card-payments/card-payments-repository.js';
import { nextCardCheckAt } from '../domain/card-payments/check-schedule.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { nextRefundCheckAt } from '../domain/pix/live/reconcile-schedule.js';
import { findSale } from '../domain/sales/sales-repository.js';
import type { Database } from '../platform/db/schema.js';
import { applyCardOutcome } from './apply-card-outcome.js';
import type { CardOutcomeOptions } from './apply-card-outcome.js';

const scopeOf = (row: CardPaymentsTable) => ({ storeId: row.store_id, livemode: row.livemode === 1 });

/**
 * Reads a payment back from its PSP (`GET /v1/payments/{id}`, `GET /orders/{id}`) and applies what
 * the PSP says: the only way a notification or the reconciler changes a payment, so nothing ever
 * moves on a notification's word. PSP failures throw (`ProviderError`).
 */
export async function readBackCardPayment(
  db: Kysely<Database>,
  payments: PaymentProviders,
  row: CardPaymentsTable,
  options: CardOutcomeOptions,
) {
  if (row.provider_payment_id === null) throw new Error(`card payment ${row.id} has no id at its PSP`);
  const provider = await payments.card(scopeOf(row));
  const outcome = await provider.getPayment({
    pspId: row.provider_payment_id,
    pspChargeId: row.provider_charge_id,
  });
  return applyCardOutcome(db, row, outcome, options);
}

/**
 * When the payment, as it is now, is next read back: an undecided live one on its schedule from its
 * creation (24 h at most), an approved one whose sale's refund is pending on the refund's schedule;
 * null when its PSP has nothing left to tell us that we wait for.
 */
export async function nextReadBackAt(
  db: Kysely<Database>,
  row: CardPaymentsTable,
  now: Date,
  scheduleMs: readonly number[],
): Promise<string | null> {
  if (row.status === 'processing' || row.status === 'requires_action')
    return row.livemode === 1 ? nextCardCheckAt(row.created_at, now, scheduleMs) : null;
  if (row.status !== 'approved' || row.sale_id === null) return null;
  const sale = await findSale(db, scopeOf(row), row.sale_id);
  return sale?.refund_status === 'pending' && sale.refund_requested_at !== null
    ? nextRefundCheckAt(sale.refund_requested_at, now, scheduleMs)
    : null;
}

/** The payment as it is now (another delivery may have moved it since `row` was read). */
export async function currentCardPayment(db: Kysely<Database>, row: CardPaymentsTable) {
  return (await findCardPayment(db, scopeOf(row), row.id)) ?? row;
}
