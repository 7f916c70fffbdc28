import type { Kysely } from 'kysely';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import { ApiError, invalidRequest } from '../platform/http/api-error.js';
import { nowIso } from '../platform/values/time.js';
import { chargeChanged } from '../domain/pix/charge-signals.js';
import { payCharge } from './pay-charge.js';
import { effectiveStatus, toPixCharge } from '../domain/pix/pix-charge-object.js';
import type { PixCharge, PixChargesTable } from '../domain/pix/pix-charge-object.js';
import { findCharge, markCanceled } from '../domain/pix/pix-charges-repository.js';
import { markOrderCanceled } from '../domain/orders/orders-repository.js';
import { dropRecoveryEmail } from './queue-recovery-email.js';
import { ProviderError } from '../domain/payments/provider-errors.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { auditing } from '../domain/accounts/audit.js';
import { formatBrl } from '../platform/values/money.js';
import type { Actor, OnWrite } from '../domain/kernel/write-context.js';

function notCancelable(status: string): ApiError {
  if (status === 'paid') return invalidRequest('This Pix charge is already paid and cannot be canceled.');
  if (status === 'canceled') return invalidRequest('This Pix charge is already canceled.');
  return invalidRequest('This Pix charge has expired and cannot be canceled.');
}

/**
 * Cancels a pending charge, in both modes. Live, the PSP removes the cob first (`PATCH /cob/{txid}`);
 * if the PSP shows it paid instead, the payment is applied through the one pay path and the answer
 * is 400 (already paid). Locally, `pending → canceled` is a conditional update, so a payment or an
 * expiry racing the cancel leaves exactly one outcome and one event. The `actor`'s audit entry (none
 * when a subscription's cancel ends its first charge: that one is audited) commits with the cancel.
 */
export async function cancelCharge(
  db: Kysely<Database>,
  payments: PaymentProviders,
  row: PixChargesTable,
  mail: Pick<Config, 'smtp'>,
  actor?: Actor,
): Promise<PixCharge> {
  const scope = { storeId: row.store_id, livemode: row.livemode === 1 };
  const status = effectiveStatus(row);
  if (status !== 'pending') throw notCancelable(status);
  const provider = await payments.pix(scope);
  const outcome = await provider.cancelCharge(row.txid, row.amount_cents);
  if (!outcome.removed) {
    if (!outcome.payment) {
      throw new ProviderError(
        `The PSP shows cob ${row.txid} as paid (CONCLUIDA), but with no payment matching this charge's amount and key.`,
      );
    }
    // Paid just before the cancel reached the PSP: the payment wins (unless a callback applied it first).
    await payCharge(db, row, outcome.payment, mail).catch((error: unknown) => {
      if (!(error instanceof ApiError) || error.statusCode !== 400) throw error;
    });
    throw notCancelable('paid');
  }
  const detail = `${row.id} de ${formatBrl(row.amount_cents)}`;
  return recordCanceled(db, row, actor && auditing(row.store_id, actor, 'pix_charge_canceled', detail));
}

/**
 * pending → canceled with its `pix.canceled` event, in one transaction; 400 if something else won.
 * A purchase-page order whose Pix this is becomes `canceled` in the same commit (its coupon hold and
 * any recovery e-mail still waiting end with it), and an order page watching the charge is told at once.
 */
export async function recordCanceled(
  db: Kysely<Database>,
  row: PixChargesTable,
  onWrite?: OnWrite,
): Promise<PixCharge> {
  const scope = { storeId: row.store_id, livemode: row.livemode === 1 };
  const canceled = await db.transaction().execute(async (trx) => {
    const now = nowIso();
    if (!(await markCanceled(trx, row.id, now))) {
      const current = (await findCharge(trx, scope, row.id)) ?? row;
      throw notCancelable(effectiveStatus(current, now));
    }
    const object = toPixCharge({ ...row, status: 'canceled', canceled_at: now, next_check_at: null }, now);
    await recordEvent(trx, { ...scope, type: 'pix.canceled', object });
    await onWrite?.(trx);
    const order = await markOrderCanceled(trx, row.store_id, row.id);
    if (order) await dropRecoveryEmail(trx, order.id);
    return object;
  });
  chargeChanged(row.id);
  return canceled;
}
