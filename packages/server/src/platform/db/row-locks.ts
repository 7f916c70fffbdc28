import { sql } from 'kysely';
import type { RawBuilder, SelectQueryBuilder } from 'kysely';
import { isPostgres } from './sql-dialect.js';
import type { DialectHandle } from './sql-dialect.js';

/*
 * What a feature may ask of the database about locking, instead of which engine it is. PostgreSQL
 * locks rows (SELECT … FOR UPDATE [SKIP LOCKED]); SQLite has one writer at a time, so a write
 * transaction there already excludes every other and needs no row lock.
 */

/** Whether rows can be locked: a caller that must lock a row before counting or claiming asks this. */
export const locksRows = (db: DialectHandle): boolean => isPostgres(db);

/** For `.$call`: FOR UPDATE where rows lock, so a second writer of those rows waits for this one. */
export function lockedRows(db: DialectHandle) {
  return <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> =>
    locksRows(db) ? query.forUpdate() : query;
}

/** For `.$call`: FOR UPDATE SKIP LOCKED where rows lock, so concurrent claimers take different rows. */
export function claimableRows(db: DialectHandle) {
  return <DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O> =>
    locksRows(db) ? query.forUpdate().skipLocked() : query;
}

/** How many rows a counter that concurrent transactions all add to is split into on PostgreSQL. */
export const COUNTER_SLOTS = 16;

/**
 * Which of a hot counter's rows this statement adds to, for the `slot` column of its key. A counter
 * every purchase of a store adds to (the store's day) would otherwise be one row, whose lock each
 * transaction holds from its increment to its commit: one store's purchases queued on it, across every
 * process and node. On PostgreSQL a connection adds to the row of its backend's process id modulo
 * COUNTER_SLOTS, so transactions on different connections seldom meet; readers sum the slots. SQLite
 * has one writer at a time, so everything goes to slot 0.
 */
export function counterSlot(db: DialectHandle): RawBuilder<number> {
  return locksRows(db) ? sql<number>`pg_backend_pid() % ${sql.lit(COUNTER_SLOTS)}` : sql<number>`0`;
}
