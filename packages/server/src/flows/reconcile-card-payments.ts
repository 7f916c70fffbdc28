import type { Kysely } from 'kysely';
import type { CardPaymentsTable } from '../domain/card-payments/card-payment-object.js';
import { updateCardPaymentFrom } from '../domain/card-payments/card-payments-repository.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { ApiError } from '../platform/http/api-error.js';
import { claimDue } from '../platform/jobs/claim-due.js';
import type { DueQueue } from '../platform/jobs/claim-due.js';
import { startWorker } from '../platform/jobs/worker.js';
import type { JobLog, Worker } from '../platform/jobs/worker.js';
import type { CardOutcomeOptions } from './apply-card-outcome.js';
import { currentCardPayment, nextReadBackAt, readBackCardPayment } from './read-back-card-payment.js';

export interface CardReconcilerOptions {
  db: Kysely<Database>;
  /** Whose `card` answers for each store's PSP. */
  payments: PaymentProviders;
  log: JobLog;
  /** The outcome's e-mail and 3-D Secure page, and STOREFRONT_CARD_RECONCILE_SCHEDULE. */
  links: CardOutcomeOptions & { scheduleMs: readonly number[] };
  /** A claimed payment is someone else's again after this long (a crashed reconciler's work resumes). */
  leaseMs: number;
  /** How often the database is polled when idle (default 1 s). */
  pollIntervalMs?: number;
}

/** Payments in flight at once. */
const CONCURRENCY = 20;
/** Payments due for a read-back at their PSP at `next_check_at`. */
const CARD_CHECKS: DueQueue = { table: 'card_payments', key: 'id', dueAt: 'next_check_at', token: null };
/**
 * A read-back that failed on a payment with nothing else pending (one a notification named, say a
 * chargeback) is tried again every last step while disputes may still come, this long after the sale.
 */
const RETRY_FAILED_FOR_MS = 120 * 24 * 60 * 60_000;

/**
 * Reads due card payments back at their PSP, so a lost notification delays an outcome but never loses
 * it: live `processing` and `requires_action` payments on their schedule, approved ones whose refund is
 * pending, and any a notification's own read-back failed on. Every change goes through
 * `applyCardOutcome`, made once whoever delivers it (conditional updates). A PSP failure reschedules
 * the payment. Any number of reconcilers may run against one database: each payment is claimed first.
 */
export function startCardReconciler(options: CardReconcilerOptions): Worker {
  const { db, payments, log, links, leaseMs } = options;
  const scheduleMs = links.scheduleMs;

  async function reschedule(row: CardPaymentsTable, failed: boolean): Promise<void> {
    const now = new Date();
    const current = await currentCardPayment(db, row);
    let next = await nextReadBackAt(db, current, now, scheduleMs);
    if (next === null && failed && now.getTime() - Date.parse(current.created_at) < RETRY_FAILED_FOR_MS)
      next = new Date(now.getTime() + scheduleMs[scheduleMs.length - 1]!).toISOString();
    await updateCardPaymentFrom(db, current, { next_check_at: next });
  }

  async function check(row: CardPaymentsTable): Promise<void> {
    const context = { card_payment_id: row.id, store_id: row.store_id, provider: row.provider };
    let failed = false;
    try {
      const { payment, changed } = await readBackCardPayment(db, payments, row, links);
      if (changed)
        log.info({ ...context, status: payment.status }, 'card payment read back: its outcome applied');
    } catch (err) {
      failed = true;
      if (err instanceof ApiError)
        log.info({ ...context, code: err.code, message: err.message }, 'card payment read-back failed');
      else log.error({ ...context, err }, 'card payment read-back failed');
    }
    await reschedule(row, failed);
  }

  return startWorker<CardPaymentsTable>({
    name: 'card reconciler',
    log,
    pollIntervalMs: options.pollIntervalMs ?? 1000,
    concurrency: CONCURRENCY,
    wakeOn: [],
    claim: (limit) => claimDue<CardPaymentsTable>(db, CARD_CHECKS, limit, leaseMs),
    handle: check,
    failed: (row, err) => log.error({ err, card_payment_id: row.id }, 'card reconcile check failed'),
  });
}

/** The reconciler as `serve` (inline worker) and `storefront worker` run it, from the configuration. */
export function startConfiguredCardReconciler(
  db: Kysely<Database>,
  payments: PaymentProviders,
  config: Pick<Config, 'cardReconcileScheduleMs' | 'pspRequestTimeoutMs' | 'smtp' | 'publicUrl'>,
  log: JobLog,
): Worker {
  return startCardReconciler({
    db,
    payments,
    log,
    links: { mail: config, publicUrl: config.publicUrl, scheduleMs: config.cardReconcileScheduleMs },
    // A read-back is one call and one retried call: two timeouts, and room to write.
    leaseMs: config.pspRequestTimeoutMs * 2 + 5_000,
  });
}
