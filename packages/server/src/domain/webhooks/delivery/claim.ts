import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { prefixedId } from '../../../platform/values/ids.js';
import { isoAfter, nowIso } from '../../../platform/values/time.js';
import type { WebhookEndpointsTable } from '../endpoint-object.js';
import { isPostgres } from '../../../platform/db/sql-dialect.js';
import type { WebhookJobsTable } from './jobs.js';

export interface ClaimedJob {
  job: WebhookJobsTable;
  endpoint: WebhookEndpointsTable | undefined;
  /** The stored event: its `payload` is the exact body to send. */
  event: { id: string; type: string; payload: string } | undefined;
}

/**
 * Leases up to `limit` due jobs to this worker in one statement. The lease is written into
 * `next_attempt_at` (now + leaseMs) with a token of our own: another worker sees the job as not due
 * until the lease runs out, and a crashed worker's job becomes due again by itself (at least once).
 *
 * PostgreSQL: FOR UPDATE SKIP LOCKED makes concurrent workers take disjoint rows, and the outer
 * UPDATE re-checks that the row is still due, so no attempt is handed out twice. SQLite: the single
 * UPDATE runs under the one write lock.
 */
export async function claimDueJobs(
  db: Kysely<Database>,
  limit: number,
  leaseMs: number,
): Promise<ClaimedJob[]> {
  const now = nowIso();
  const lease = prefixedId('lease');
  const postgres = isPostgres(db);
  const due = db
    .selectFrom('webhook_jobs')
    .select('id')
    .where('next_attempt_at', '<=', now)
    .orderBy('next_attempt_at')
    .limit(limit)
    .$if(postgres, (q) => q.forUpdate().skipLocked());
  const jobs = await db
    .updateTable('webhook_jobs')
    .set({ next_attempt_at: isoAfter(leaseMs), lease })
    .where('id', 'in', due)
    .where('next_attempt_at', '<=', now)
    .returningAll()
    .execute();
  if (jobs.length === 0) return [];

  const [endpoints, events] = await Promise.all([
    db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', 'in', [...new Set(jobs.map((j) => j.endpoint_id))])
      .execute(),
    db
      .selectFrom('events')
      .select(['id', 'type', 'payload'])
      .where('id', 'in', [...new Set(jobs.map((j) => j.event_id))])
      .execute(),
  ]);
  const endpointById = new Map(endpoints.map((e) => [e.id, e]));
  const eventById = new Map(events.map((e) => [e.id, e]));
  return jobs.map((job) => ({
    job,
    endpoint: endpointById.get(job.endpoint_id),
    event: eventById.get(job.event_id),
  }));
}
