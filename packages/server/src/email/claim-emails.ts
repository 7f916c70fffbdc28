import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { prefixedId } from '../common/ids.js';
import { isoAfter, nowIso } from '../common/time.js';
import { isPostgres } from '../webhooks/sql-dialect.js';
import { jobOf, queueDb } from './email-queue.js';
import type { EmailJob, EmailQueue } from './email-queue.js';

/**
 * Leases up to `limit` due jobs of a queue to this worker, like the webhook jobs: the lease is written
 * into `next_attempt_at` with a token of our own, so no other worker sees the job as due until it runs
 * out (a crashed worker's job comes back by itself). PostgreSQL: SKIP LOCKED gives concurrent workers
 * disjoint rows, and the outer UPDATE re-checks the due time. SQLite: one UPDATE under the write lock.
 * A plain read goes first, so an idle poll never takes SQLite's write lock.
 */
export async function claimDueEmails(
  database: Kysely<Database>,
  queue: EmailQueue,
  limit: number,
  leaseMs: number,
): Promise<EmailJob[]> {
  const db = queueDb(database);
  const now = nowIso();
  const due = db.selectFrom(queue.table).select(queue.key).where('next_attempt_at', '<=', now);
  if (!(await due.limit(1).executeTakeFirst())) return [];
  const batch = due
    .orderBy('next_attempt_at')
    .limit(limit)
    .$if(isPostgres(database), (q) => q.forUpdate().skipLocked());
  const rows = await db
    .updateTable(queue.table)
    .set({ next_attempt_at: isoAfter(leaseMs), lease: prefixedId('lease') })
    .where(queue.key, 'in', batch)
    .where('next_attempt_at', '<=', now)
    .returningAll()
    .execute();
  return rows.map((row) => jobOf(queue, row));
}
