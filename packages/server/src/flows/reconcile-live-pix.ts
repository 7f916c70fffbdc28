import type { Kysely } from 'kysely';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { claimDue } from '../platform/jobs/claim-due.js';
import type { DueQueue } from '../platform/jobs/claim-due.js';
import { claimInTurn, startWorker } from '../platform/jobs/worker.js';
import type { JobLog, Worker } from '../platform/jobs/worker.js';
import { ApiError } from '../platform/http/api-error.js';
import { applyRefundOutcome } from './apply-refund-outcome.js';
import type { SalesTable } from '../domain/sales/sale-object.js';
import { recordCanceled } from './cancel-charge.js';
import { payCharge } from './pay-charge.js';
import type { PixChargesTable } from '../domain/pix/pix-charge-object.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { RECONCILE_WAKE, nextCheckAt, nextRefundCheckAt } from '../domain/pix/live/reconcile-schedule.js';

/**
 * One more kind of row the reconciler asks a PSP about (the subscriptions module adds Pix Automático's
 * authorisations, `GET /rec`, and cycle charges, `GET /cobr`): claimed in batches like charges, each
 * claimed row checked once. A check owns its errors and its rescheduling.
 */
export interface DueCheck {
  /** Names the check in log lines. */
  name: string;
  /** Leases up to `limit` due rows (`claimDue`, with `token: null`) and returns one task per row. */
  claim(db: Kysely<Database>, limit: number, leaseMs: number): Promise<(() => Promise<void>)[]>;
}

export interface ReconcilerOptions {
  db: Kysely<Database>;
  /** Whose `livePix` answers for each store's PSP. */
  payments: PaymentProviders;
  log: JobLog;
  /** STOREFRONT_PIX_RECONCILE_SCHEDULE. */
  scheduleMs: readonly number[];
  /** A claimed check is someone else's again after this long (a crashed reconciler's work resumes). */
  leaseMs: number;
  /** How often the database is polled when idle (default 1 s). */
  pollIntervalMs?: number;
  /** A confirmed payment queues the sale's delivery e-mail like any other. */
  mail: Pick<Config, 'smtp'>;
  /** Checks beyond charges and refunds, claimed after them while slots are free. */
  checks?: readonly DueCheck[];
}

/** `stop` lets the checks in flight finish. */
export type Reconciler = Worker;

/** Checks in flight at once. */
const CONCURRENCY = 20;

/** Pending live charges, due for a `GET /cob` at `next_check_at`. */
const CHARGE_CHECKS: DueQueue = { table: 'pix_charges', key: 'id', dueAt: 'next_check_at', token: null };
/** Pending live refunds, due for a `GET /devolucao` at `refund_next_check_at`. */
const REFUND_CHECKS: DueQueue = { table: 'sales', key: 'id', dueAt: 'refund_next_check_at', token: null };

/** A claimed row's check, and the check it belongs to (for its log line). */
interface Task {
  check: string;
  run(): Promise<void>;
}

/**
 * Asks each store's PSP about pending live charges (`GET /cob/{txid}`) on their schedule and when a
 * callback names them, and about pending refunds (`GET /pix/{e2eid}/devolucao/{id}`). A confirmed
 * payment goes through the one pay path; applying it twice is impossible (conditional update). Any
 * number of reconcilers may run against one PostgreSQL database: each check is claimed first.
 */
export function startPixReconciler(options: ReconcilerOptions): Reconciler {
  const { db, payments, log, scheduleMs, leaseMs, mail, checks = [] } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;

  async function reschedule(row: PixChargesTable): Promise<void> {
    await db
      .updateTable('pix_charges')
      .set({ next_check_at: nextCheckAt(row.created_at, row.expires_at, new Date(), scheduleMs) })
      .where('id', '=', row.id)
      .where('status', 'in', ['pending', 'expired'])
      .execute();
  }

  async function checkCharge(row: PixChargesTable): Promise<void> {
    const context = { charge_id: row.id, store_id: row.store_id, txid: row.txid };
    if (row.status === 'paid' || row.status === 'canceled') {
      await db.updateTable('pix_charges').set({ next_check_at: null }).where('id', '=', row.id).execute();
      return;
    }
    try {
      const provider = await payments.livePix(row.store_id);
      const state = await provider.getCharge(row.txid, row.amount_cents);
      if (state.payment) {
        await payCharge(db, row, state.payment, mail);
        log.info(
          { ...context, end_to_end_id: state.payment.endToEndId },
          'live pix payment confirmed by the PSP',
        );
        return;
      }
      if (state.status === 'CONCLUIDA') {
        log.warn(context, 'PSP shows the cob paid, but not for this amount and key: nothing changes');
      } else if (state.status !== 'ATIVA' && row.status === 'pending') {
        await recordCanceled(db, row);
        log.info({ ...context, psp_status: state.status }, 'cob removed at the PSP: charge canceled');
        return;
      } else {
        log.debug({ ...context, psp_status: state.status }, 'live pix charge not paid yet');
      }
    } catch (err) {
      if (err instanceof ApiError)
        log.info({ ...context, code: err.code, message: err.message }, 'live pix check failed');
      else log.error({ ...context, err }, 'live pix check failed');
    }
    await reschedule(row);
  }

  async function checkRefund(row: SalesTable): Promise<void> {
    const context = { sale_id: row.id, store_id: row.store_id, refund_id: row.refund_id };
    if (row.refund_status !== 'pending' || row.refund_id === null || row.pix_end_to_end_id === null) {
      await db.updateTable('sales').set({ refund_next_check_at: null }).where('id', '=', row.id).execute();
      return;
    }
    const request = { refundId: row.refund_id, requestedAt: row.refund_requested_at! };
    try {
      const provider = await payments.livePix(row.store_id);
      const devolucao = await provider.getRefund(row.pix_end_to_end_id, row.refund_id);
      await applyRefundOutcome(db, row, request, devolucao, scheduleMs);
      if (devolucao.status !== 'EM_PROCESSAMENTO') {
        log.info({ ...context, status: devolucao.status }, 'live refund settled');
      }
      return;
    } catch (err) {
      if (err instanceof ApiError)
        log.info({ ...context, code: err.code, message: err.message }, 'live refund check failed');
      else log.error({ ...context, err }, 'live refund check failed');
    }
    await db
      .updateTable('sales')
      .set({ refund_next_check_at: nextRefundCheckAt(request.requestedAt, new Date(), scheduleMs) })
      .where('id', '=', row.id)
      .where('refund_status', '=', 'pending')
      .execute();
  }

  const charges: DueCheck = {
    name: 'live pix charges',
    claim: async (db, limit, leaseMs) =>
      (await claimDue<PixChargesTable>(db, CHARGE_CHECKS, limit, leaseMs)).map(
        (row) => () => checkCharge(row),
      ),
  };
  const refunds: DueCheck = {
    name: 'live pix refunds',
    claim: async (db, limit, leaseMs) =>
      (await claimDue<SalesTable>(db, REFUND_CHECKS, limit, leaseMs)).map((row) => () => checkRefund(row)),
  };
  const claimOf =
    (check: DueCheck) =>
    async (limit: number): Promise<Task[]> =>
      (await check.claim(db, limit, leaseMs)).map((run) => ({ check: check.name, run }));

  return startWorker<Task>({
    name: 'pix reconciler',
    log,
    pollIntervalMs,
    concurrency: CONCURRENCY,
    wakeOn: [RECONCILE_WAKE],
    claim: (limit) => claimInTurn(limit, [charges, refunds, ...checks].map(claimOf)),
    handle: (task) => task.run(),
    failed: (task, err) => log.error({ err, check: task.check }, 'pix reconcile check failed'),
  });
}

/** The reconciler as `serve` (inline worker) and `storefront worker` run it, from the configuration. */
export function startConfiguredReconciler(
  db: Kysely<Database>,
  payments: PaymentProviders,
  config: Pick<Config, 'pixReconcileScheduleMs' | 'pspRequestTimeoutMs' | 'smtp'>,
  log: JobLog,
  checks: readonly DueCheck[] = [],
): Reconciler {
  return startPixReconciler({
    db,
    payments,
    log,
    scheduleMs: config.pixReconcileScheduleMs,
    mail: config,
    checks,
    // A check is a token request, a call and one retried call: three timeouts, and room to write.
    leaseMs: config.pspRequestTimeoutMs * 3 + 5_000,
  });
}
