import type { Database as BetterSqlite } from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/**
 * Kysely prepares every SQLite statement again on each query; preparing was 9-15% of the server's
 * time on reads and ~1.2 ms of a product creation (bench/README.md). The service runs a small, fixed
 * set of query shapes, so prepared statements are kept by SQL text. Kysely only uses `all` and `run`
 * (which finish synchronously), so a statement is never reused while busy; SQLite re-prepares
 * transparently after a schema change.
 */
export function withStatementCache(sqlite: BetterSqlite, maxStatements = 1000): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      let statement = statements.get(sql);
      if (!statement) {
        statement = sqlite.prepare(sql);
        // Oldest first: a Map iterates in insertion order.
        if (statements.size >= maxStatements) statements.delete(statements.keys().next().value!);
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}
