import type { Kysely } from 'kysely';
import type { Config } from '../../platform/config/config.js';
import type { Database } from '../../platform/db/schema.js';
import type { PaymentProviders } from '../../domain/payments/payment-providers.js';
import { purgeExpiredIdempotencyKeys } from '../../platform/http/idempotency.js';
import { startPeriodic } from '../../platform/jobs/periodic.js';
import type { JobLog, Worker } from '../../platform/jobs/worker.js';
import { expireDueCharges } from '../../domain/pix/expiry-sweeper.js';
import { expireUnauthorised } from '../../domain/subscriptions/subscriptions-repository.js';
import { dispatchOnWrite } from '../../domain/webhooks/delivery/dispatch.js';
import { startDeliveryWorker } from '../../domain/webhooks/delivery/worker.js';
import { dispatchEventsOnWrite } from '../../platform/outbox/outbox.js';
import { foldDailySlots, foldableBefore } from '../../domain/analytics/fold-slots.js';
import { abandonDueOrders } from '../../flows/abandon-orders.js';
import { recurringChecks } from '../../flows/check-live-subscriptions.js';
import { startConfiguredReconciler } from '../../flows/reconcile-live-pix.js';
import { startConfiguredCardReconciler } from '../../flows/reconcile-card-payments.js';
import { startRetention } from '../../flows/retention.js';
import { startCycleScheduler } from '../../flows/run-cycles.js';
import { startConversionWorker } from '../../flows/send-meta-conversions.js';
import { startEmailWorker } from '../../flows/send-emails.js';

export interface DutyDeps {
  db: Kysely<Database>;
  /** The node's one registry of payment providers (the reconciler and the cycles reach PSPs). */
  payments: PaymentProviders;
  config: Config;
  log: JobLog;
}

/**
 * A background duty of a node. `serve` duties run once per node beside the HTTP server (in the
 * primary with STOREFRONT_PROCESSES above 1). `worker` duties are the worker's: inline in `serve`
 * (STOREFRONT_WORKER=inline), or in `storefront worker`; several nodes may run them at once, as each
 * claims its work.
 */
interface Duty {
  name: string;
  runsIn: 'serve' | 'worker';
  /** Starts it, or answers null when the configuration leaves it off. */
  start(deps: DutyDeps): Worker | null;
}

const SWEEP_INTERVAL_MS = 10_000;
const PURGE_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Every duty of a node, in the order they start. A new sweeper, poller or sender is added here,
 * nowhere else: `serve` and `storefront worker` both start their part of this list.
 */
const DUTIES: readonly Duty[] = [
  {
    name: 'idempotency purge',
    runsIn: 'serve',
    start: ({ db, log }) =>
      startPeriodic({
        name: 'idempotency purge',
        log,
        intervalMs: PURGE_INTERVAL_MS,
        delayFirstRun: true,
        run: async () => void (await purgeExpiredIdempotencyKeys(db)),
        failed: (err) => log.warn({ err }, 'idempotency purge failed'),
      }),
  },
  {
    name: 'pix expiry',
    runsIn: 'serve',
    start: ({ db, log }) =>
      startPeriodic({
        name: 'pix expiry sweep',
        log,
        intervalMs: SWEEP_INTERVAL_MS,
        delayFirstRun: true,
        // A subscription whose first charge expired or was canceled was never authorised: it expires too.
        run: async () => {
          await expireDueCharges(db);
          await expireUnauthorised(db);
        },
        failed: (err) => log.warn({ err }, 'pix expiry sweep failed'),
      }),
  },
  {
    name: 'order abandonment',
    runsIn: 'serve',
    start: ({ db, config, log }) =>
      startPeriodic({
        name: 'order abandonment sweep',
        log,
        intervalMs: SWEEP_INTERVAL_MS,
        delayFirstRun: true,
        run: async () => void (await abandonDueOrders(db, config)),
        failed: (err) => log.warn({ err }, 'order abandonment sweep failed'),
      }),
  },
  {
    // On PostgreSQL one day's totals are added to in several rows while it is busy; past days go back
    // to one row a day, so a year's summary stays a short read.
    name: 'daily totals folding',
    runsIn: 'serve',
    start: ({ db, log }) =>
      startPeriodic({
        name: 'daily totals folding',
        log,
        intervalMs: PURGE_INTERVAL_MS,
        // At start too: a node restarted more often than hourly still folds.
        run: async () => void (await foldDailySlots(db, foldableBefore(Date.now()))),
        failed: (err) => log.warn({ err }, 'daily totals folding failed'),
      }),
  },
  {
    name: 'retention',
    runsIn: 'serve',
    start: ({ db, config, log }) => startRetention(db, { olderThanDays: config.retentionDays, log }),
  },
  {
    name: 'webhook delivery',
    runsIn: 'worker',
    start: ({ db, config, log }) => startDeliveryWorker({ db, config, log }),
  },
  {
    name: 'delivery e-mail',
    runsIn: 'worker',
    start: ({ db, config, log }) =>
      config.smtp ? startEmailWorker({ db, smtp: config.smtp, config, log }) : null,
  },
  {
    // Meta conversion events, claimed like e-mails: any number of nodes send each once.
    name: 'meta conversions',
    runsIn: 'worker',
    start: ({ db, config, log }) => startConversionWorker({ db, config, log }),
  },
  {
    name: 'live pix reconciler',
    runsIn: 'worker',
    start: ({ db, payments, config, log }) =>
      startConfiguredReconciler(db, payments, config, log, recurringChecks(db, payments, config, log)),
  },
  {
    // Card payments the PSP has not decided, and refunds it has not settled: read back on a schedule.
    name: 'card reconciler',
    runsIn: 'worker',
    start: ({ db, payments, config, log }) => startConfiguredCardReconciler(db, payments, config, log),
  },
  {
    // Subscription cycles are billed by the worker too: claimed, so any number of nodes bill each once.
    name: 'subscription cycles',
    runsIn: 'worker',
    start: ({ db, payments, log }) => startCycleScheduler({ db, payments, log }),
  },
];

export interface RunningDuties {
  /** The names of the duties started. */
  started: readonly string[];
  /** Stops them all, each letting its work in flight finish (attempts record their result). */
  stop(): Promise<void>;
}

/** Starts the duties that run in the places named: `serve`'s own, the worker's, or both. */
export function startDuties(deps: DutyDeps, runsIn: readonly Duty['runsIn'][]): RunningDuties {
  // The duties' own events (a charge expired, a payment read back) queue their deliveries as written.
  dispatchEventsOnWrite(deps.db, dispatchOnWrite);
  const running = DUTIES.filter((duty) => runsIn.includes(duty.runsIn)).flatMap((duty) => {
    const started = duty.start(deps);
    return started ? [{ name: duty.name, worker: started }] : [];
  });
  let stopped: Promise<void> | null = null;
  return {
    started: running.map((duty) => duty.name),
    stop() {
      stopped ??= Promise.all(running.map((duty) => duty.worker.stop())).then(() => undefined);
      return stopped;
    },
  };
}
