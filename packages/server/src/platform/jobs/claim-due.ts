import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isPostgres } from '../db/sql-dialect.js';
import { prefixedId } from '../values/ids.js';
import { isoAfter, nowIso } from '../values/time.js';

/** A job table as the claim sees it: rows keyed by `key`, due at `next_attempt_at`, leased by `lease`. */
export interface DueQueue {
  table: string;
  key: string;
}

type QueueRow = Record<string, unknown> & { next_attempt_at: string | null; lease: string | null };

/**
 * Leases up to `limit` due rows of a queue table to this worker, like the webhook jobs: the lease is
 * written into `next_attempt_at` with a token of our own, so no other worker sees the row as due until
 * it runs out (a crashed worker's job comes back by itself). PostgreSQL: SKIP LOCKED gives concurrent
 * workers disjoint rows, and the outer UPDATE re-checks the due time. SQLite: one UPDATE under the
 * write lock. A plain read goes first, so an idle poll never takes SQLite's write lock. A row whose
 * `next_attempt_at` is null (settled) is never due. The e-mail queues and the conversion events share it.
 */
export async function claimDueRows<Row>(
  database: Kysely<Database>,
  queue: DueQueue,
  limit: number,
  leaseMs: number,
): Promise<Row[]> {
  const db = database as unknown as Kysely<Record<string, QueueRow>>;
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
  return rows as Row[];
}
