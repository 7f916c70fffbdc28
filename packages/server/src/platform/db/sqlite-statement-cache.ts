import type { Database as BetterSqlite, Statement } from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';
import { changesSchema } from './schema-change.js';

/**
 * A reading statement that fetches rows as arrays and gives them their column names in JS.
 * better-sqlite3 builds each row object property by property in C++, which cost as much as finding
 * and reading the row: 103 µs of a 20-row product page against 64 µs this way (bench/README.md).
 */
class ObjectRowsStatement implements SqliteStatement {
  readonly reader = true;
  private readonly names: string[];

  constructor(private readonly statement: Statement<unknown[], unknown[]>) {
    statement.raw(true);
    this.names = statement.columns().map((column) => column.name);
  }

  private toObject(values: unknown[]): Record<string, unknown> {
    const row: Record<string, unknown> = {};
    // Same as better-sqlite3's own objects: a repeated column name keeps the last value.
    for (let i = 0; i < values.length; i++) row[this.names[i]!] = values[i];
    return row;
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    const rows = this.statement.all(parameters);
    return rows.map((values) => this.toObject(values));
  }

  run(parameters: ReadonlyArray<unknown>) {
    return this.statement.run(parameters);
  }

  *iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    for (const values of this.statement.iterate(parameters)) yield this.toObject(values);
  }
}

/**
 * Kysely prepares every SQLite statement again on each query; preparing was 9-15% of the server's
 * time on reads and ~1.2 ms of a product creation (bench/README.md). The service runs a small, fixed
 * set of query shapes, so prepared statements are kept by SQL text. Kysely only uses `all` and `run`
 * (which finish synchronously), so a statement is never reused while busy. Schema changes are not
 * kept and empty the cache, so no statement outlives the columns it was prepared for.
 */
export function withStatementCache(sqlite: BetterSqlite, maxStatements = 1000): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      const cached = statements.get(sql);
      if (cached) return cached;
      const prepared = sqlite.prepare<unknown[], unknown[]>(sql);
      if (changesSchema(sql)) {
        statements.clear();
        return prepared;
      }
      const statement = prepared.reader ? new ObjectRowsStatement(prepared) : prepared;
      // Oldest first: a Map iterates in insertion order.
      if (statements.size >= maxStatements) statements.delete(statements.keys().next().value!);
      statements.set(sql, statement);
      return statement;
    },
  };
}
