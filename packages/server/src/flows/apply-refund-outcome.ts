import type { Kysely } from 'kysely';
import { countRefund } from '../domain/analytics/daily-totals.js';
import type { Database } from '../platform/db/schema.js';
import type { OnWrite } from '../domain/kernel/write-context.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import type { Devolucao } from '../domain/payments/pix-provider.js';
import { nextRefundCheckAt } from '../domain/pix/live/reconcile-schedule.js';
import { nowIso } from '../platform/values/time.js';
import { toSale } from '../domain/sales/sale-object.js';
import type { Sale, SalesTable } from '../domain/sales/sale-object.js';
import { countCardPayment } from '../platform/metrics/metrics.js';
import { recordCardRefund } from './card-refund.js';

export interface RefundRequest {
  refundId: string;
  requestedAt: string;
}

/**
 * Writes what the provider said about a refund, each outcome once (conditional updates):
 * - `DEVOLVIDO`: the sale becomes `refunded`, `refund.status` `succeeded`, event `sale.refunded`,
 *   and its amount is added to the day's refunded total;
 * - `NAO_REALIZADO`: `refund.status` `failed` with the PSP's reason, event `sale.refund_failed`
 *   (the sale stays approved and may be refunded again);
 * - `EM_PROCESSAMENTO`: `refund.status` `pending`, checked again on the reconcile schedule.
 * A card sale's payment moves with it (card-refund.ts): `refunded` with `card_payment.refunded`
 * before `sale.refunded`, or due for a read-back at its PSP while pending (`scheduleMs` is then the
 * card reconciler's).
 * Returns the sale as it is afterwards. `onWrite` (the merchant's refund: its audit entry) runs in the
 * same transaction, only when the outcome changed the sale.
 */
export async function applyRefundOutcome(
  db: Kysely<Database>,
  row: SalesTable,
  request: RefundRequest,
  outcome: Pick<Devolucao, 'status' | 'reason'>,
  scheduleMs?: readonly number[],
  onWrite?: OnWrite,
): Promise<Sale> {
  const scope = { storeId: row.store_id, livemode: row.livemode === 1 };
  const base = { refund_id: request.refundId, refund_requested_at: request.requestedAt };
  // Only a refund not yet settled moves: a late or repeated answer changes nothing.
  const open = (trx: Kysely<Database>) =>
    trx
      .updateTable('sales')
      .where('id', '=', row.id)
      .where('status', '=', 'approved')
      .where((eb) =>
        eb.or([
          eb('refund_status', 'is', null),
          eb('refund_status', '=', 'pending'),
          eb('refund_id', '!=', request.refundId),
        ]),
      );
  const card = row.payment_method === 'card' && row.card_payment_id != null;
  const { sale, cardRefunded } = await db.transaction().execute(async (trx) => {
    const now = nowIso();
    if (outcome.status === 'EM_PROCESSAMENTO') {
      const next = nextRefundCheckAt(request.requestedAt, new Date(now), scheduleMs);
      const changes = {
        ...base,
        refund_status: 'pending' as const,
        refund_failure_reason: null,
        // A card refund is followed through its payment, read back at the card PSP.
        refund_next_check_at: card ? null : next,
      };
      const result = await open(trx).set(changes).executeTakeFirst();
      if (result.numUpdatedRows === 0n) return { sale: toSale(row), cardRefunded: null };
      if (card) await recordCardRefund(trx, row, outcome.status, request.requestedAt, now, scheduleMs);
      await onWrite?.(trx);
      return { sale: toSale({ ...row, ...changes }), cardRefunded: null };
    }
    const changes =
      outcome.status === 'DEVOLVIDO'
        ? {
            ...base,
            status: 'refunded' as const,
            refunded_at: now,
            refund_status: 'succeeded' as const,
            refund_failure_reason: null,
            refund_next_check_at: null,
          }
        : {
            ...base,
            refund_status: 'failed' as const,
            refund_failure_reason: outcome.reason ?? 'The PSP could not return the payment.',
            refund_next_check_at: null,
          };
    const result = await open(trx).set(changes).executeTakeFirst();
    if (result.numUpdatedRows === 0n) return { sale: toSale(row), cardRefunded: null };
    await onWrite?.(trx);
    if (outcome.status === 'DEVOLVIDO') await countRefund(trx, row, now);
    const cardRefunded = card
      ? await recordCardRefund(trx, row, outcome.status, request.requestedAt, now)
      : null;
    const sale = toSale({ ...row, ...changes });
    const type = outcome.status === 'DEVOLVIDO' ? 'sale.refunded' : 'sale.refund_failed';
    // After the card payment's own event: listings and deliveries order by time.
    await recordEvent(trx, {
      ...scope,
      type,
      object: sale,
      ...(cardRefunded && { after: cardRefunded.event }),
    });
    return { sale, cardRefunded };
  });
  if (cardRefunded !== null) countCardPayment(cardRefunded.payment.provider, 'refunded');
  return sale;
}
