import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { invalidRequest } from '../platform/http/api-error.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { nowIso } from '../platform/values/time.js';
import { formatBrl } from '../platform/values/money.js';
import { auditing } from '../domain/accounts/audit.js';
import type { Actor } from '../domain/kernel/write-context.js';
import type { Devolucao } from '../domain/payments/pix-provider.js';
import { applyRefundOutcome } from './apply-refund-outcome.js';
import type { Sale, SalesTable } from '../domain/sales/sale-object.js';
import type { Config } from '../platform/config/config.js';
import { refundCardSale } from './card-refund.js';

/**
 * Our `devolucao` id: the sale's id without dashes (32 characters), so a repeated PUT does not refund
 * twice; a new attempt after a failed one gets `r2`, `r3`… (at most 35 characters, the standard's limit).
 */
export function nextRefundId(row: SalesTable): string {
  const base = row.id.replace(/-/g, '');
  if (row.refund_id === null) return base;
  const attempt = /r(\d+)$/.exec(row.refund_id);
  return `${base}r${attempt ? Number(attempt[1]) + 1 : 2}`;
}

/** How the owners' audit log words the refund: its outcome at the PSP when not (yet) done. */
function refundDetail(row: SalesTable, outcome: Pick<Devolucao, 'status'>): string {
  const what = `Venda ${row.id} de ${formatBrl(row.amount_cents)}`;
  if (outcome.status === 'EM_PROCESSAMENTO') return `${what} (pendente no PSP)`;
  if (outcome.status === 'NAO_REALIZADO') return `${what} (recusado pelo PSP)`;
  return what;
}

/** The refusals of a refund, as the API words them (the dashboard words them its own way). */
export const REFUND_REFUSALS = {
  alreadyRefunded: 'This sale is already refunded.',
  chargedBack:
    'This sale was charged back: its buyer disputed the card payment and the PSP returned the money.',
  pending: 'A refund of this sale is already pending at the PSP; its outcome arrives as an event.',
} as const;

/** A refund's outcome at the sale's provider: the Pix returned, the card payment refunded, or nothing to return. */
async function refundAtProvider(
  db: Kysely<Database>,
  payments: PaymentProviders,
  row: SalesTable,
  refundId: string,
): Promise<Pick<Devolucao, 'status' | 'reason'>> {
  if (row.payment_method === 'card' && row.card_payment_id != null)
    return refundCardSale(db, payments, row, refundId);
  // A free order moved no money: nothing to return.
  if (row.pix_end_to_end_id === null) return { status: 'DEVOLVIDO', reason: null };
  const provider = await payments.pix({ storeId: row.store_id, livemode: row.livemode === 1 });
  return provider.refund({ endToEndId: row.pix_end_to_end_id, refundId, amountCents: row.amount_cents });
}

/**
 * Refunds a whole sale: the provider returns the Pix to the payer (`PUT /pix/{e2eid}/devolucao/{id}`),
 * or the card sale's PSP refunds its payment (simulated and immediate for test keys without a test
 * PSP). A live refund the PSP is still processing leaves the sale approved with `refund.status`
 * `pending` until the PSP settles it (callback, notification or reconciler, on the schedule of the
 * sale's method). The `actor`'s audit entry is written in the transaction that records the outcome.
 */
export async function refundSale(
  db: Kysely<Database>,
  payments: PaymentProviders,
  row: SalesTable,
  actor: Actor,
  schedules: Pick<Config, 'pixReconcileScheduleMs' | 'cardReconcileScheduleMs'>,
): Promise<Sale> {
  if (row.status === 'refunded') throw invalidRequest(REFUND_REFUSALS.alreadyRefunded);
  if (row.status === 'charged_back') throw invalidRequest(REFUND_REFUSALS.chargedBack);
  if (row.refund_status === 'pending') throw invalidRequest(REFUND_REFUSALS.pending);
  const request = { refundId: nextRefundId(row), requestedAt: nowIso() };
  const devolucao = await refundAtProvider(db, payments, row, request.refundId);
  const scheduleMs =
    row.payment_method === 'card' ? schedules.cardReconcileScheduleMs : schedules.pixReconcileScheduleMs;
  const onWrite = auditing(row.store_id, actor, 'sale_refunded', refundDetail(row, devolucao));
  const sale = await applyRefundOutcome(db, row, request, devolucao, scheduleMs, onWrite);
  if (sale.status === 'approved' && sale.refund?.status !== 'pending' && sale.refund?.status !== 'failed') {
    throw invalidRequest(REFUND_REFUSALS.alreadyRefunded);
  }
  return sale;
}
