import { PostgresAdapter } from 'kysely';
import type { QueryExecutor } from 'kysely';

/** Anything that runs queries: a Kysely handle or a transaction. */
export interface DialectHandle {
  getExecutor(): QueryExecutor;
}

/**
 * Which engine runs the queries. Only platform/db asks this (to write its SQL for each engine);
 * features ask for a capability instead (row-locks.ts), as .dependency-cruiser.cjs holds.
 */
export function isPostgres(db: DialectHandle): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
