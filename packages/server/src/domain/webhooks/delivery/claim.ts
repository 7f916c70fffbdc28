import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { claimDue } from '../../../platform/jobs/claim-due.js';
import type { DueQueue } from '../../../platform/jobs/claim-due.js';
import type { WebhookEndpointsTable } from '../endpoint-object.js';
import type { WebhookJobsTable } from '../delivery-jobs.js';

export interface ClaimedJob {
  job: WebhookJobsTable;
  endpoint: WebhookEndpointsTable | undefined;
  /** The stored event: its `payload` is the exact body to send. */
  event: { id: string; type: string; payload: string } | undefined;
}

/** The delivery queue as the jobs module's claim sees it (results are written under the claim's token). */
const WEBHOOK_QUEUE: DueQueue = { table: 'webhook_jobs', key: 'id' };

/**
 * Leases up to `limit` due jobs to this worker (`claimDue`: a crashed worker's job comes back once
 * its lease runs out, so delivery is at least once), with what each needs to be sent.
 */
export async function claimDueJobs(
  db: Kysely<Database>,
  limit: number,
  leaseMs: number,
): Promise<ClaimedJob[]> {
  const jobs = await claimDue<WebhookJobsTable>(db, WEBHOOK_QUEUE, limit, leaseMs);
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
