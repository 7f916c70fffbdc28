import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { isoAfter, nowIso } from '../../../platform/values/time.js';
import { isPostgres } from '../../../platform/db/sql-dialect.js';

/**
 * Leases up to `limit` due checks to this reconciler, the way webhook jobs are claimed: the lease is
 * written into the due column (now + leaseMs), so another reconciler sees the row as not due until it
 * runs out, and a crashed one's work becomes due again by itself. On PostgreSQL, FOR UPDATE SKIP
 * LOCKED hands concurrent reconcilers disjoint rows; on SQLite the single UPDATE holds the one write lock.
 * `table` has an `id` and the nullable ISO-time column `dueColumn` (null: nothing to check).
 */
export async function claimDue<T extends keyof Database & string>(
  db: Kysely<Database>,
  table: T,
  dueColumn: string,
  limit: number,
  leaseMs: number,
): Promise<Selectable<Database[T]>[]> {
  // One query shape for every table that has an id and a due column; Kysely cannot type a column
  // chosen at run time, so the query is built untyped and its rows typed by `table`.
  const untyped = db as unknown as Kysely<Record<string, Record<string, string | null>>>;
  const name: string = table;
  const now = nowIso();
  const due = untyped
    .selectFrom(name)
    .select('id')
    .where(dueColumn, '<=', now)
    .orderBy(dueColumn)
    .limit(limit)
    .$if(isPostgres(db), (q) => q.forUpdate().skipLocked());
  const rows = await untyped
    .updateTable(name)
    .set({ [dueColumn]: isoAfter(leaseMs) })
    .where('id', 'in', due)
    .where(dueColumn, '<=', now)
    .returningAll()
    .execute();
  return rows as unknown as Selectable<Database[T]>[];
}
