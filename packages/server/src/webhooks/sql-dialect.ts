import { PostgresAdapter } from 'kysely';
import type { Kysely } from 'kysely';

/** Row locks (FOR UPDATE, SKIP LOCKED) exist only on PostgreSQL; SQLite has a single writer instead. */
export function isPostgres<DB>(db: Kysely<DB>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
