import type { SelectQueryBuilder } from 'kysely';
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
