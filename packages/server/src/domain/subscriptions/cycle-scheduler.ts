import type { Kysely } from 'kysely';
import type { BaseLogger } from 'pino';
import type { Database } from '../../platform/db/schema.js';
import { startPollLoop } from '../../platform/jobs/poll-loop.js';
import type { PollLoop } from '../../platform/jobs/poll-loop.js';
import { isoAfter, nowIso } from '../../platform/values/time.js';
import { ApiError } from '../../platform/http/api-error.js';
import { isPostgres } from '../../platform/db/sql-dialect.js';
import { announceNewEvents } from '../../platform/jobs/wake.js';
import { sendCycleCharges } from '../../flows/cycle-charges.js';
import { addDays, localDate } from '../../platform/values/local-date.js';
import type { PaymentProviders } from '../payments/payment-providers.js';
import { endSubscription, MAX_RETRIES, RETRY_WINDOW_DAYS } from '../../flows/subscription-outcomes.js';
import type { SubscriptionsTable } from './subscription-object.js';
import { findCycle, moveCycle, moveSubscription } from './subscriptions-repository.js';

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
 * Leases up to `limit` subscriptions with work due by `asOf` to this scheduler, the way webhook jobs
 * are claimed: `claimed_until` is written in the same statement that picks them, so no other
 * scheduler takes them until it runs out. PostgreSQL: FOR UPDATE SKIP LOCKED hands concurrent
 * schedulers disjoint rows and the outer UPDATE re-checks the lease. SQLite: one UPDATE under the one
 * write lock.
 */
export async function claimDueSubscriptions(
  db: Kysely<Database>,
  day: StoreDay,
  storeId: string | undefined,
  limit: number,
  leaseMs: number,
): Promise<SubscriptionsTable[]> {
  const now = nowIso();
  const due = db
    .selectFrom('subscriptions')
    .select('id')
    .where('next_action_date', '<=', day.asOf)
    .where('status', 'in', ['active', 'past_due'])
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .$if(storeId !== undefined, (q) => q.where('store_id', '=', storeId!))
    .$if(day.timezone !== null, (q) =>
      q.where('store_id', 'in', db.selectFrom('stores').select('id').where('timezone', '=', day.timezone!)),
    )
    .orderBy('next_action_date')
    .limit(limit)
    .$if(isPostgres(db), (q) => q.forUpdate().skipLocked());
  return db
    .updateTable('subscriptions')
    .set({ claimed_until: isoAfter(leaseMs) })
    .where('id', 'in', due)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .returningAll()
    .execute();
}

/** A day to play: `asOf` for the stores in `timezone`, or for every store (null). */
export interface StoreDay {
  asOf: string;
  timezone: string | null;
}

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
 * Days are the store's (its `timezone`); `asOf` plays that day as if it had come, for every store. Safe with any number of schedulers at once: each
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
  report.expired = await expireUnauthorised(db, options.storeId);
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
    .where('status', '=', 'active')
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

/**
 * Pending subscriptions whose first charge expired or was canceled unpaid: never authorised, they
 * become `expired` (a conditional update, so a late confirmed payment and this sweep give one outcome).
 */
export async function expireUnauthorised(db: Kysely<Database>, storeId?: string): Promise<string[]> {
  const now = nowIso();
  const rows = await db
    .selectFrom('subscriptions')
    .innerJoin('pix_charges', (join) =>
      join
        .onRef('pix_charges.id', '=', 'subscriptions.first_charge_id')
        .onRef('pix_charges.store_id', '=', 'subscriptions.store_id'),
    )
    .selectAll('subscriptions')
    .where('subscriptions.status', '=', 'pending')
    .where((eb) =>
      eb.or([
        eb('pix_charges.status', 'in', ['expired', 'canceled']),
        eb.and([eb('pix_charges.status', '=', 'pending'), eb('pix_charges.expires_at', '<=', now)]),
      ]),
    )
    .$if(storeId !== undefined, (q) => q.where('subscriptions.store_id', '=', storeId!))
    .execute();
  const expired: string[] = [];
  for (const row of rows) {
    if (await moveSubscription(db, row, ['pending'], { status: 'expired', next_check_at: null })) {
      expired.push(row.id);
    }
  }
  return expired;
}

/** The worker's scheduler: runs `runCycles` for each store's today every `intervalMs` (default 1 minute). */
export function startCycleScheduler(deps: {
  db: Kysely<Database>;
  payments: PaymentProviders;
  log: Pick<BaseLogger, 'debug' | 'info' | 'warn' | 'error'>;
  intervalMs?: number;
}): PollLoop {
  return startPollLoop({
    name: 'subscription scheduler',
    pollIntervalMs: deps.intervalMs ?? 60_000,
    log: deps.log,
    round: async () => {
      const report = await runCycles(deps.db, deps.payments);
      const did = report.charges_sent.length + report.retries_requested.length + report.canceled.length;
      if (did > 0) {
        announceNewEvents();
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
      return false;
    },
  });
}
