import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isoAfter, nowIso } from '../../common/time.js';
import { isPostgres } from '../../webhooks/sql-dialect.js';

/**
 * Leases up to `limit` due checks to this reconciler, the way webhook jobs are claimed: the lease is
 * written into the due column (now + leaseMs), so another reconciler sees the row as not due until it
 * runs out, and a crashed one's work becomes due again by itself. On PostgreSQL, FOR UPDATE SKIP
 * LOCKED hands concurrent reconcilers disjoint rows; on SQLite the single UPDATE holds the one write lock.
 */
export async function claimDueCharges(db: Kysely<Database>, limit: number, leaseMs: number) {
  const now = nowIso();
  const due = db
    .selectFrom('pix_charges')
    .select('id')
    .where('next_check_at', '<=', now)
    .orderBy('next_check_at')
    .limit(limit)
    .$if(isPostgres(db), (q) => q.forUpdate().skipLocked());
  return db
    .updateTable('pix_charges')
    .set({ next_check_at: isoAfter(leaseMs) })
    .where('id', 'in', due)
    .where('next_check_at', '<=', now)
    .returningAll()
    .execute();
}

export async function claimDueRefunds(db: Kysely<Database>, limit: number, leaseMs: number) {
  const now = nowIso();
  const due = db
    .selectFrom('sales')
    .select('id')
    .where('refund_next_check_at', '<=', now)
    .orderBy('refund_next_check_at')
    .limit(limit)
    .$if(isPostgres(db), (q) => q.forUpdate().skipLocked());
  return db
    .updateTable('sales')
    .set({ refund_next_check_at: isoAfter(leaseMs) })
    .where('id', 'in', due)
    .where('refund_next_check_at', '<=', now)
    .returningAll()
    .execute();
}
