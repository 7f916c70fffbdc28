import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { prefixedId } from '../../../platform/values/ids.js';
import { isoAfter } from '../../../platform/values/time.js';
import { DELIVERY_ID_PREFIX, HISTORY_LIMIT } from '../delivery-object.js';
import type { WebhookDeliveriesTable } from '../delivery-object.js';
import { retryAt } from '../../../platform/jobs/retry-schedule.js';
import type { WebhookJobsTable } from '../delivery-jobs.js';

/** An endpoint whose every attempt has failed for this long is moved to `disabled`. */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  /** Why it failed, safe to show the merchant (failure-reason.ts); null on success. */
  error: string | null;
  startedAt: string;
  finishedAt: string;
}

export interface FinishedAttempt {
  job: WebhookJobsTable;
  eventType: string;
  outcome: AttemptOutcome;
}

export interface RecordedAttempt {
  attempt: number;
  nextRetryAt: string | null;
  /** True when this batch moved the attempt's endpoint to `disabled`. */
  disabled: boolean;
}

// Both databases cap the bound parameters of one statement; 12 columns × 500 rows stays well below.
const CHUNK = 500;

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Writes a batch of attempts in one transaction: their history records, each job's next step
 * (retry later, or done: deleted) and each endpoint's failure run. Batching is what lets one worker
 * record thousands of attempts a second. A job is only touched under the lease it was sent under:
 * if that lease expired and another worker took the job, that worker owns what happens next.
 */
export async function recordAttempts(
  db: Kysely<Database>,
  finished: FinishedAttempt[],
  scheduleMs: readonly number[],
): Promise<RecordedAttempt[]> {
  const results = finished.map(({ job, outcome }) => {
    const attempt = job.attempts + 1;
    // A manual resend is a single attempt; automatic jobs follow the schedule until it runs out.
    const nextRetryAt =
      outcome.ok || job.manual === 1 ? null : retryAt(scheduleMs, attempt, outcome.finishedAt);
    return { attempt, nextRetryAt, disabled: false };
  });
  const rows: WebhookDeliveriesTable[] = finished.map(({ job, eventType, outcome }, i) => ({
    id: prefixedId(DELIVERY_ID_PREFIX),
    store_id: job.store_id,
    endpoint_id: job.endpoint_id,
    event_id: job.event_id,
    event_type: eventType,
    attempt: results[i]!.attempt,
    response_status: outcome.status,
    error: outcome.error,
    delivered_at: outcome.ok ? outcome.finishedAt : null,
    failed_at: outcome.ok ? null : outcome.finishedAt,
    next_retry_at: results[i]!.nextRetryAt,
    created_at: outcome.startedAt,
  }));

  await db.transaction().execute(async (trx) => {
    for (const chunk of chunks(rows)) await trx.insertInto('webhook_deliveries').values(chunk).execute();

    const done = finished.filter((_, i) => results[i]!.nextRetryAt === null).map((f) => f.job);
    for (const chunk of chunks(done)) await dropJobs(trx, chunk);
    for (const [i, { job }] of finished.entries()) {
      const { attempt, nextRetryAt } = results[i]!;
      if (nextRetryAt === null) continue;
      await trx
        .updateTable('webhook_jobs')
        .set({ attempts: attempt, next_attempt_at: nextRetryAt, lease: null })
        .where('id', '=', job.id)
        .where('lease', '=', job.lease)
        .execute();
    }

    for (const [endpointId, outcomes] of groupByEndpoint(finished)) {
      if (await updateFailureRun(trx, endpointId, outcomes)) {
        finished.forEach((f, i) => {
          if (f.job.endpoint_id === endpointId) results[i]!.disabled = true;
        });
      }
    }
  });
  return results;
}

function groupByEndpoint(finished: FinishedAttempt[]): Map<string, AttemptOutcome[]> {
  const groups = new Map<string, AttemptOutcome[]>();
  for (const { job, outcome } of finished)
    groups.set(job.endpoint_id, [...(groups.get(job.endpoint_id) ?? []), outcome]);
  return groups;
}

/**
 * A success ends the endpoint's failure run; failures since its last success start one (or extend
 * it), and a run older than DISABLE_AFTER_MS disables the endpoint. Returns true when it did.
 */
async function updateFailureRun(trx: Kysely<Database>, endpointId: string, outcomes: AttemptOutcome[]) {
  const ordered = [...outcomes].sort((a, b) => a.finishedAt.localeCompare(b.finishedAt));
  let lastSuccess = -1;
  ordered.forEach((o, i) => {
    if (o.ok) lastSuccess = i;
  });
  const failuresSince = ordered.slice(lastSuccess + 1);
  const endpoint = trx.updateTable('webhook_endpoints').where('id', '=', endpointId);
  if (failuresSince.length === 0) {
    await endpoint.set({ failing_since: null }).where('failing_since', 'is not', null).execute();
    return false;
  }
  const firstFailure = failuresSince[0]!.finishedAt;
  const lastFailure = failuresSince[failuresSince.length - 1]!.finishedAt;
  if (lastSuccess >= 0) await endpoint.set({ failing_since: firstFailure }).execute();
  else await endpoint.set({ failing_since: firstFailure }).where('failing_since', 'is', null).execute();
  const disabled = await endpoint
    .set({ status: 'disabled', updated_at: lastFailure })
    .where('status', '=', 'active')
    .where('failing_since', '<=', isoAfter(-DISABLE_AFTER_MS, new Date(lastFailure)))
    .executeTakeFirst();
  return disabled.numUpdatedRows > 0n;
}

/** Removes jobs we hold: done, out of retries, or nothing to send (endpoint gone or not active). */
export async function dropJobs(
  db: Kysely<Database>,
  jobs: Pick<WebhookJobsTable, 'id' | 'lease'>[],
): Promise<void> {
  if (jobs.length === 0) return;
  // Lease tokens are random per claim, so "one of our leases" is as good as "this job's lease".
  const leases = [...new Set(jobs.map((j) => j.lease).filter((l): l is string => l !== null))];
  if (leases.length === 0) return;
  await db
    .deleteFrom('webhook_jobs')
    .where(
      'id',
      'in',
      jobs.map((j) => j.id),
    )
    .where('lease', 'in', leases)
    .execute();
}

/** Keeps the newest HISTORY_LIMIT attempts of an endpoint. */
export async function trimHistory(db: Kysely<Database>, endpointId: string): Promise<void> {
  const newest = db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('endpoint_id', '=', endpointId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(HISTORY_LIMIT);
  await db
    .deleteFrom('webhook_deliveries')
    .where('endpoint_id', '=', endpointId)
    .where('id', 'not in', newest)
    .execute();
}
