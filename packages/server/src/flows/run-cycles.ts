import type { Kysely } from 'kysely';
import { planConstant } from '../platform/db/plan-constant.js';
import type { Database } from '../platform/db/schema.js';
import { startPeriodic } from '../platform/jobs/periodic.js';
import type { JobLog, Worker } from '../platform/jobs/worker.js';
import { ApiError } from '../platform/http/api-error.js';
import { addDays, localDate } from '../platform/values/local-date.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import type { SubscriptionsTable } from '../domain/subscriptions/subscription-object.js';
import {
  claimDueSubscriptions,
  expireUnauthorised,
  findCycle,
  moveCycle,
  moveSubscription,
} from '../domain/subscriptions/subscriptions-repository.js';
import type { StoreDay } from '../domain/subscriptions/subscriptions-repository.js';
import { sendCycleCharges } from './cycle-charges.js';
import { endSubscription, MAX_RETRIES, RETRY_WINDOW_DAYS } from './subscription-outcomes.js';

/** What one run did, as `storefront subscriptions run-cycles --json` prints it. */
export interface CycleRunReport {
  /** The day played (`--as-of`), or null: each store's own today, in its time zone. */
  as_of: string | null;
  store_id: string | null;
  charges_sent: Array<{ subscription_id: string; cycle: number; due_date: string }>;
  retries_requested: Array<{ subscription_id: string; cycle: number; date: string }>;
  canceled: Array<{ subscription_id: string; reason: 'payment_failed' }>;
  expired: string[];
  failed: Array<{ subscription_id: string; error: string }>;
}

export interface RunCyclesOptions {
  /** The day played, `YYYY-MM-DD`, for every store; default each store's today in its own time zone. */
  asOf?: string | undefined;
  storeId?: string | undefined;
  /** A claimed subscription is someone else's again after this long (a crashed scheduler's work resumes). */
  leaseMs?: number;
}

const BATCH = 200;
const DEFAULT_LEASE_MS = 5 * 60 * 1000;

/**
 * The days a run plays: the one given, or today in each time zone stores are in (a handful), so a
 * store in Manaus reaches its due dates at its own midnight, an hour after one in São Paulo.
 */
async function daysToPlay(db: Kysely<Database>, options: RunCyclesOptions, now: Date): Promise<StoreDay[]> {
  if (options.asOf !== undefined) return [{ asOf: options.asOf, timezone: null }];
  const zones = await db
    .selectFrom('stores')
    .select('timezone')
    .distinct()
    .$if(options.storeId !== undefined, (q) => q.where('id', '=', options.storeId!))
    .execute();
  return zones.map(({ timezone }) => ({ asOf: localDate(now, timezone), timezone }));
}

/**
 * Runs the cycle scheduler once, as the worker does: for every subscription with work due by `asOf`
 * it sends the next cycle's charge (5 days before its due date), asks for a retry of a failed one
 * (when the policy allows and the 7 days are not over), or cancels it (`payment_failed`) when it is
 * out of retries; then it expires subscriptions whose first charge expired or was canceled unpaid.
 * Days are the store's (its `timezone`); `asOf` plays that day as if it had come, for every store,
 * expiries included (a first charge expiring by the end of that day counts as expired). Safe with any number of schedulers at once: each
 * subscription is claimed first, and each cycle's charge is made once (see `sendCycleCharges`).
 */
export async function runCycles(
  db: Kysely<Database>,
  payments: PaymentProviders,
  options: RunCyclesOptions = {},
): Promise<CycleRunReport> {
  const report: CycleRunReport = {
    as_of: options.asOf ?? null,
    store_id: options.storeId ?? null,
    charges_sent: [],
    retries_requested: [],
    canceled: [],
    expired: [],
    failed: [],
  };
  for (const day of await daysToPlay(db, options, new Date())) {
    for (;;) {
      const claimed = await claimDueSubscriptions(
        db,
        day,
        options.storeId,
        BATCH,
        options.leaseMs ?? DEFAULT_LEASE_MS,
      );
      await sendDueCharges(
        db,
        payments,
        claimed.filter((row) => row.status === 'active'),
        report,
      );
      for (const row of claimed.filter((row) => row.status === 'past_due')) {
        try {
          await retryOrEnd(db, payments, row, day.asOf, report);
        } catch (error) {
          // The lease keeps it from this run; it is due again for the next one once the lease ends.
          if (!(error instanceof ApiError)) throw error;
          report.failed.push({ subscription_id: row.id, error: error.message });
        }
      }
      if (claimed.length < BATCH) break;
    }
  }
  report.expired = await expireUnauthorised(db, { storeId: options.storeId, asOf: options.asOf });
  return report;
}

/**
 * Active subscriptions whose next cycle is due within the window: their charges go to the PSP
 * together, and each sent one is released to wait for its outcome (told by the PSP, or a simulation).
 * A PSP failure keeps its claim, so the next run after the lease tries again.
 */
async function sendDueCharges(
  db: Kysely<Database>,
  payments: PaymentProviders,
  rows: SubscriptionsTable[],
  report: CycleRunReport,
): Promise<void> {
  const released: string[] = [];
  for (const outcome of await sendCycleCharges(db, payments, rows)) {
    const { subscription, cycle } = outcome;
    if (outcome.error || !cycle) {
      report.failed.push({ subscription_id: subscription.id, error: outcome.error?.message ?? 'not sent' });
      continue;
    }
    if (outcome.sent) {
      report.charges_sent.push({
        subscription_id: subscription.id,
        cycle: cycle.cycle,
        due_date: cycle.due_date,
      });
    }
    released.push(subscription.id);
  }
  if (released.length === 0) return;
  await db
    .updateTable('subscriptions')
    .set({ next_action_date: null, claimed_until: null })
    .where('id', 'in', released)
    .where('status', '=', planConstant('active'))
    .execute();
}

/** A past-due subscription's due work: ask for a retry, or end it once out of retries. */
async function retryOrEnd(
  db: Kysely<Database>,
  payments: PaymentProviders,
  row: SubscriptionsTable,
  asOf: string,
  report: CycleRunReport,
): Promise<void> {
  const release = (next_action_date: string | null) =>
    moveSubscription(db, row, ['past_due'], { next_action_date, claimed_until: null });
  const cycle = await findCycle(db, row.id, row.cycle + 1);
  if (!cycle) throw new Error(`past-due subscription ${row.id} has no cycle ${row.cycle + 1}`);
  const windowEnd = addDays(cycle.due_date, RETRY_WINDOW_DAYS);
  const owed = cycle.retries_requested < cycle.failed_attempts && cycle.retries_requested < MAX_RETRIES;
  if (owed && asOf <= windowEnd) {
    const provider = await payments.recurring({ storeId: row.store_id, livemode: row.livemode === 1 });
    await provider.requestRetry(cycle.txid, asOf);
    await moveCycle(
      db,
      cycle,
      ['scheduled'],
      { retries_requested: cycle.retries_requested + 1 },
      { retriesRequested: cycle.retries_requested },
    );
    report.retries_requested.push({ subscription_id: row.id, cycle: cycle.cycle, date: asOf });
    // If no outcome arrives by the window's end, the next look ends it.
    await release(addDays(windowEnd, 1));
    return;
  }
  if (asOf <= windowEnd) {
    await release(addDays(windowEnd, 1)); // a retry is at the PSP: its outcome decides
    return;
  }
  await db.transaction().execute(async (trx) => {
    await moveCycle(trx, cycle, ['scheduled'], { status: 'failed', next_check_at: null });
    await endSubscription(trx, { ...row, claimed_until: null }, ['past_due'], 'payment_failed');
  });
  report.canceled.push({ subscription_id: row.id, reason: 'payment_failed' });
}

/** The worker's scheduler: runs `runCycles` for each store's today every `intervalMs` (default 1 minute). */
export function startCycleScheduler(deps: {
  db: Kysely<Database>;
  payments: PaymentProviders;
  log: JobLog;
  intervalMs?: number;
}): Worker {
  return startPeriodic({
    name: 'subscription scheduler',
    intervalMs: deps.intervalMs ?? 60_000,
    log: deps.log,
    run: async () => {
      const report = await runCycles(deps.db, deps.payments);
      const did = report.charges_sent.length + report.retries_requested.length + report.canceled.length;
      if (did > 0) {
        deps.log.info(
          {
            charges_sent: report.charges_sent.length,
            retries_requested: report.retries_requested.length,
            canceled: report.canceled.length,
            expired: report.expired.length,
          },
          'subscription cycles run',
        );
      }
      for (const failure of report.failed) deps.log.warn(failure, 'subscription cycle step failed');
    },
  });
}
