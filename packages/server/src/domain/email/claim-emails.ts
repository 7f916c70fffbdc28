import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { claimDueRows } from '../../platform/jobs/claim-due.js';
import { jobOf } from './email-queue.js';
import type { EmailJob, EmailQueue } from './email-queue.js';

/** Leases up to `limit` due jobs of an e-mail queue to this worker (see `claimDueRows`). */
export async function claimDueEmails(
  database: Kysely<Database>,
  queue: EmailQueue,
  limit: number,
  leaseMs: number,
): Promise<EmailJob[]> {
  const rows = await claimDueRows<Parameters<typeof jobOf>[1]>(database, queue, limit, leaseMs);
  return rows.map((row) => jobOf(queue, row));
}
