import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseConnection, Driver, SqliteDialectConfig } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { withNamedStatements } from './postgres-named-statements.js';
import { withStatementCache } from './sqlite-statement-cache.js';

export type DialectName = 'sqlite' | 'postgres';

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL schema to use (tests isolate each run in its own schema). */
  searchPath?: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
}

/**
 * Every transaction here writes, so it takes SQLite's write lock when it begins (`begin immediate`).
 * Kysely's plain `begin` would take it at the first write: when another process (a second HTTP
 * process, `storefront worker`) committed in between, that upgrade fails with SQLITE_BUSY at once,
 * without waiting out the busy timeout. Taken up front, the wait is the busy timeout's job.
 */
class ImmediateTransactionsDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class SqliteWriterDialect extends SqliteDialect {
  constructor(private readonly writerConfig: SqliteDialectConfig) {
    super(writerConfig);
  }

  override createDriver(): Driver {
    return new ImmediateTransactionsDriver(this.writerConfig);
  }
}

function openSqlite(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SqliteDatabase(path);
  // WAL lets readers run beside the one writer; busy_timeout makes another process (the other HTTP
  // processes of STOREFRONT_PROCESSES, a separate worker) wait for the write lock instead of failing.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const kysely = new Kysely<Database>({
    dialect: new SqliteWriterDialect({ database: withStatementCache(sqlite) }),
  });
  return { kysely, dialect: 'sqlite', close: () => kysely.destroy() };
}

function openPostgres(url: string, options: OpenOptions): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) });
  return { kysely, dialect: 'postgres', close: () => kysely.destroy() };
}

/** Opens `sqlite:<path>` or `postgres://…` (already validated by the config). */
export function openDatabase(url: string, options: OpenOptions = {}): Db {
  return url.startsWith('sqlite:') ? openSqlite(url.slice('sqlite:'.length)) : openPostgres(url, options);
}

/** A unique or primary-key violation, in either database's words. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
