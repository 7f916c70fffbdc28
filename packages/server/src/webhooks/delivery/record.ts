import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { prefixedId } from '../../shared/ids.js';
import { isoAfter } from '../../shared/time.js';
import { DELIVERY_ID_PREFIX, HISTORY_LIMIT } from '../delivery-object.js';
import { retryDelayMs } from './retry-schedule.js';
import type { WebhookJobsTable } from './jobs.js';

/** An endpoint whose every attempt has failed for this long is moved to `disabled` (DESIGN §4). */
export const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

export interface AttemptOutcome {
  ok: boolean;
  status: number | null;
  startedAt: string;
  finishedAt: string;
}

export interface RecordedAttempt {
  attempt: number;
  nextRetryAt: string | null;
  /** True when this failure moved the endpoint to `disabled`. */
  disabled: boolean;
}

/**
 * Writes one attempt: its history record, the job's next step (retry later, or done: deleted) and
 * the endpoint's failure run, in one transaction. The job is only touched under our own lease: if
 * it expired and another worker took the job, that worker owns what happens next.
 */
export async function recordAttempt(
  db: Kysely<Database>,
  job: WebhookJobsTable,
  eventType: string,
  outcome: AttemptOutcome,
  scheduleMs: readonly number[],
): Promise<RecordedAttempt> {
  const attempt = job.attempts + 1;
  // A manual resend is a single attempt; automatic jobs follow the schedule until it runs out.
  const delay = outcome.ok || job.manual === 1 ? null : retryDelayMs(scheduleMs, attempt);
  const nextRetryAt = delay === null ? null : isoAfter(delay, new Date(outcome.finishedAt));

  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('webhook_deliveries')
      .values({
        id: prefixedId(DELIVERY_ID_PREFIX),
        store_id: job.store_id,
        endpoint_id: job.endpoint_id,
        event_id: job.event_id,
        event_type: eventType,
        attempt,
        response_status: outcome.status,
        delivered_at: outcome.ok ? outcome.finishedAt : null,
        failed_at: outcome.ok ? null : outcome.finishedAt,
        next_retry_at: nextRetryAt,
        created_at: outcome.startedAt,
      })
      .execute();

    if (nextRetryAt === null) {
      await dropJob(trx, job);
    } else {
      await trx
        .updateTable('webhook_jobs')
        .set({ attempts: attempt, next_attempt_at: nextRetryAt, lease: null })
        .where('id', '=', job.id)
        .where('lease', '=', job.lease)
        .execute();
    }

    const endpoint = trx.updateTable('webhook_endpoints').where('id', '=', job.endpoint_id);
    if (outcome.ok) {
      await endpoint.set({ failing_since: null }).where('failing_since', 'is not', null).execute();
      return { attempt, nextRetryAt, disabled: false };
    }
    await endpoint.set({ failing_since: outcome.finishedAt }).where('failing_since', 'is', null).execute();
    const disabled = await endpoint
      .set({ status: 'disabled', updated_at: outcome.finishedAt })
      .where('status', '=', 'active')
      .where('failing_since', '<=', isoAfter(-DISABLE_AFTER_MS, new Date(outcome.finishedAt)))
      .executeTakeFirst();
    return { attempt, nextRetryAt, disabled: disabled.numUpdatedRows > 0n };
  });
}

/** Removes a job we hold: done, out of retries, or nothing to send (endpoint gone or not active). */
export async function dropJob(db: Kysely<Database>, job: WebhookJobsTable): Promise<void> {
  await db.deleteFrom('webhook_jobs').where('id', '=', job.id).where('lease', '=', job.lease).execute();
}

/** Keeps the newest HISTORY_LIMIT attempts of an endpoint (spec 8). */
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
