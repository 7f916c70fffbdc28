import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { withNamedStatements } from './postgres-named-statements.js';
import { withStatementCache } from './sqlite-statement-cache.js';

export type DialectName = 'sqlite' | 'postgres';

export interface PoolStats {
  size: number;
  inUse: number;
  waiting: number;
}

export interface Db {
  kysely: Kysely<Database>;
  dialect: DialectName;
  /** PostgreSQL pool counters for metrics; null on SQLite (one connection, no pool). */
  poolStats(): PoolStats | null;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL schema to use (tests isolate each run in its own schema). */
  searchPath?: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
}

function openSqlite(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SqliteDatabase(path);
  // WAL lets readers run beside the one writer; busy_timeout makes a second process (a separate
  // worker) wait for the write lock instead of failing at once.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  const kysely = new Kysely<Database>({
    dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
  });
  return { kysely, dialect: 'sqlite', poolStats: () => null, close: () => kysely.destroy() };
}

function openPostgres(url: string, options: OpenOptions): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
  });
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool) }) });
  const poolStats = (): PoolStats => ({
    size: pool.options.max,
    inUse: pool.totalCount - pool.idleCount,
    waiting: pool.waitingCount,
  });
  return { kysely, dialect: 'postgres', poolStats, close: () => kysely.destroy() };
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
