import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { prefixedId } from '../../platform/values/ids.js';
import { nowIso } from '../../platform/values/time.js';
import { wakeOnCommit } from '../../platform/jobs/wake.js';
import { OUTBOX_WAKE } from '../../platform/outbox/outbox.js';

/**
 * The delivery queue: one row per (endpoint, event) that still has an attempt to make. A job is
 * deleted once delivered or once its retries are exhausted; the history lives in webhook_deliveries.
 */
export interface WebhookJobsTable {
  id: string;
  store_id: string;
  endpoint_id: string;
  event_id: string;
  /** Attempts already recorded for this job (the next one is attempts + 1). */
  attempts: number;
  /** 1 for a resend asked through the API: one attempt, no automatic retries after it. */
  manual: number;
  /** When the job is due; while leased, when the lease expires. */
  next_attempt_at: string;
  /** Token of the worker holding the job; results are only applied under the same token. */
  lease: string | null;
  created_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    webhook_jobs: WebhookJobsTable;
  }
}

export interface NewJob {
  storeId: string;
  endpointId: string;
  eventId: string;
  attempts?: number;
  manual?: boolean;
}

export function jobRow(job: NewJob, now = nowIso()): WebhookJobsTable {
  return {
    id: prefixedId('whj'),
    store_id: job.storeId,
    endpoint_id: job.endpointId,
    event_id: job.eventId,
    attempts: job.attempts ?? 0,
    manual: job.manual ? 1 : 0,
    next_attempt_at: now,
    lease: null,
    created_at: now,
  };
}

/**
 * Asks for an attempt now (test and manual resend). If that event is already queued for the endpoint,
 * the queued job is pulled forward instead, unless a worker is sending it at this very moment. An
 * upsert rather than catching the unique violation, which would abort a PostgreSQL transaction.
 */
export async function enqueueNow(db: Kysely<Database>, job: NewJob): Promise<void> {
  const row = jobRow(job);
  await db
    .insertInto('webhook_jobs')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['endpoint_id', 'event_id'])
        .doUpdateSet({ next_attempt_at: row.next_attempt_at })
        .where('webhook_jobs.lease', 'is', null),
    )
    .execute();
  await wakeOnCommit(db, OUTBOX_WAKE);
}
