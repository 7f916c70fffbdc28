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

/**
 * Refunds a whole sale: the provider returns the Pix to the payer (`PUT /pix/{e2eid}/devolucao/{id}`;
 * simulated and immediate for test keys). A live refund the PSP is still processing leaves the sale
 * approved with `refund.status` `pending` until the PSP settles it (callback or reconciler). The
 * `actor`'s audit entry is written in the transaction that records the outcome.
 */
/** The refusals of a refund, as the API words them (the dashboard words them its own way). */
export const REFUND_REFUSALS = {
  alreadyRefunded: 'This sale is already refunded.',
  pending: 'A refund of this sale is already pending at the PSP; its outcome arrives as an event.',
} as const;

export async function refundSale(
  db: Kysely<Database>,
  payments: PaymentProviders,
  row: SalesTable,
  actor: Actor,
  scheduleMs?: readonly number[],
): Promise<Sale> {
  if (row.status === 'refunded') throw invalidRequest(REFUND_REFUSALS.alreadyRefunded);
  if (row.refund_status === 'pending') throw invalidRequest(REFUND_REFUSALS.pending);
  const provider = await payments.pix({ storeId: row.store_id, livemode: row.livemode === 1 });
  const request = { refundId: nextRefundId(row), requestedAt: nowIso() };
  const devolucao =
    row.pix_end_to_end_id === null
      ? ({ status: 'DEVOLVIDO', reason: null } as const) // no money moved, nothing to return
      : await provider.refund({
          endToEndId: row.pix_end_to_end_id,
          refundId: request.refundId,
          amountCents: row.amount_cents,
        });
  const onWrite = auditing(row.store_id, actor, 'sale_refunded', refundDetail(row, devolucao));
  const sale = await applyRefundOutcome(db, row, request, devolucao, scheduleMs, onWrite);
  if (sale.status === 'approved' && sale.refund?.status !== 'pending' && sale.refund?.status !== 'failed') {
    throw invalidRequest(REFUND_REFUSALS.alreadyRefunded);
  }
  return sale;
}
