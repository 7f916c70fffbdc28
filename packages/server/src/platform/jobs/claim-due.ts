import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { claimableRows } from '../db/row-locks.js';
import { prefixedId } from '../values/ids.js';
import { isoAfter, nowIso } from '../values/time.js';

/** A table of work as a claim sees it: rows keyed by `key`, each due at the time in `dueAt`. */
export interface DueQueue {
  table: string;
  key: string;
  /** When the row is due (null: never, e.g. settled); a claim moves it to the lease's end. Default `next_attempt_at`. */
  dueAt?: string;
  /**
   * Where a claim writes a token of its own (default `lease`), for queues whose results are written
   * only under the claim that made them; null for rows checked again by whoever holds them next.
   */
  token?: string | null;
}

type QueueRow = Record<string, string | null>;

/**
 * Leases up to `limit` due rows of a queue to this worker, the one claim of every worker (webhook
 * jobs, e-mails, conversion events, the reconciler's checks): the lease's end is written into the due
 * column, so no other worker sees the row as due until it runs out, and a crashed worker's row comes
 * back by itself. PostgreSQL: FOR UPDATE SKIP LOCKED gives concurrent workers disjoint rows, and the
 * outer UPDATE re-checks the due time, so no row is handed out twice. SQLite: one UPDATE under the
 * write lock. A plain read goes first, so an idle poll never takes SQLite's write lock.
 */
export async function claimDue<Row>(
  database: Kysely<Database>,
  queue: DueQueue,
  limit: number,
  leaseMs: number,
): Promise<Row[]> {
  // One query shape for every queue table; Kysely cannot type a table chosen at run time, so the
  // query is built untyped and its rows typed by the caller.
  const db = database as unknown as Kysely<Record<string, QueueRow>>;
  const { table, key, dueAt = 'next_attempt_at', token = 'lease' } = queue;
  const now = nowIso();
  const due = db.selectFrom(table).select(key).where(dueAt, '<=', now);
  if (!(await due.limit(1).executeTakeFirst())) return [];
  const batch = due.orderBy(dueAt).limit(limit).$call(claimableRows(database));
  const rows = await db
    .updateTable(table)
    .set({ [dueAt]: isoAfter(leaseMs), ...(token !== null && { [token]: prefixedId('lease') }) })
    .where(key, 'in', batch)
    .where(dueAt, '<=', now)
    .returningAll()
    .execute();
  return rows as Row[];
}
