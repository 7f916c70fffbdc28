import { PostgresAdapter } from 'kysely';
import type { QueryExecutor } from 'kysely';

/** Row locks (FOR UPDATE, SKIP LOCKED) exist only on PostgreSQL; SQLite has a single writer instead. */
export function isPostgres(db: { getExecutor(): QueryExecutor }): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
