import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { CompiledQuery, Kysely, SqliteDialect, SqliteDriver } from 'kysely';
import type { DatabaseConnection, Driver, LogEvent, SqliteDialectConfig } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { countDbStatement } from '../metrics/metrics.js';
import type { Database } from './schema.js';
import { withAfterCommit } from './after-commit.js';
import { withNamedStatements } from './postgres-named-statements.js';
import { SearchPathPostgresDialect } from './search-path-introspector.js';
import { startBackgroundCheckpoints } from './sqlite-background-checkpoints.js';
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
  /**
   * Bounds on every wait for PostgreSQL, so a request fails fast when the database is gone instead of
   * hanging (`SERVING_TIMEOUTS` for serve and worker). Unset: no bounds, for migrations and the CLI.
   */
  timeouts?: DatabaseTimeouts;
  /**
   * Where a lost idle connection, and a new SQLite file, are reported (default: warn-level JSON lines
   * on stderr, clear of a command's --json output).
   */
  log?: DatabaseLog;
  /**
   * SQLite: copy the WAL back into the database file from a thread (`SERVING`), not in whichever
   * commit crosses the threshold. Short-lived commands leave it to their commits.
   */
  checkpointInBackground?: boolean;
}

/** The part of a pino logger the database reports to. */
export interface DatabaseLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
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

export interface DatabaseTimeouts {
  /** Opening a connection, or waiting for a free one in the pool. */
  connectMs: number;
  /** PostgreSQL cancels a statement running longer (`statement_timeout`); the connection stays usable. */
  statementMs: number;
  /** No answer at all within this (a network partition): the connection is closed and the query fails. */
  readMs: number;
}

/**
 * What `serve` and `storefront worker` use: with PostgreSQL unreachable, a request answers 503 within
 * about 4 s (a free connection or a new one within 3 s, any statement within 3 s on the server, any
 * answer within 4 s on the wire), well before a client's own timeout.
 */
export const SERVING_TIMEOUTS: DatabaseTimeouts = { connectMs: 3000, statementMs: 3000, readMs: 4000 };

/**
 * How the long-running processes open the database (`serve`, its cluster's HTTP processes and
 * `storefront worker`): bounded waits, and on SQLite the WAL copied back from a thread.
 */
export const SERVING = { timeouts: SERVING_TIMEOUTS, checkpointInBackground: true } as const;

/** Every statement, run or failed, counts in `storefront_db_statements_total`. */
const countStatements = (_event: LogEvent) => countDbStatement();

/** For callers without a logger (the CLI, tests): made once, on first use. */
let fallbackLog: pino.Logger | null = null;
const stderrLog = (): DatabaseLog => {
  const log = () => (fallbackLog ??= pino({ level: 'warn' }, pino.destination(2)));
  return {
    info: (object: object, message: string) => log().info(object, message),
    warn: (object: object, message: string) => log().warn(object, message),
  };
};

/** How often a burst of lost connections (a restart drops them all at once) is reported. */
const LOST_CONNECTION_REPORT_MS = 10_000;

const WAL_ATTEMPTS = 50;

/**
 * Processes opening a new database file together may all switch it to WAL at once. SQLite refuses
 * all but one with SQLITE_BUSY at once, without waiting on busy_timeout (waiting could deadlock), so
 * the others wait a moment and try again: by then the file is in WAL mode and the switch is a no-op.
 */
function switchToWal(sqlite: SqliteDatabase.Database): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      sqlite.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt === WAL_ATTEMPTS) throw error;
      Atomics.wait(pause, 0, 0, 10 * attempt); // a synchronous pause: this runs once, at start
    }
  }
}

/**
 * Buyers' names, e-mails and CPFs live in the file: a new one is readable by the service's user only
 * (0600, in a 0700 directory when it makes the directory), and SQLite gives its -wal and -shm files
 * the database file's mode. A new file is said aloud: a mistyped path would otherwise start an empty
 * store silently.
 */
function createPrivately(path: string, log: DatabaseLog): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  if (existsSync(path)) return;
  log.info({ path: resolve(path) }, `creating a new database at ${resolve(path)}`);
  closeSync(openSync(path, 'a', 0o600));
}

/**
 * WAL pages written before a commit copies them back into the database file (SQLite's default is
 * 1,000). A checkpoint copies each page once however often it was rewritten since the last one, and
 * a purchase rewrites the same few pages (the day's totals, the tails of the orders, events and
 * sales and their indexes): at 1,000 the checkpoints were ~40% of the commits' CPU, ~480 µs of a page
 * purchase in commits; at 4,000, ~370 µs. The WAL file grows to ~16 MB at 4 KB pages. The commit that
 * checkpoints would take up to ~20 ms, so the service checkpoints from a thread instead
 * (`checkpointInBackground`), about as far apart at full load, with 4x this as the commits' backstop.
 */
export const WAL_CHECKPOINT_PAGES = 4000;

function openSqlite(path: string, log: DatabaseLog, checkpointInBackground: boolean): Db {
  if (path !== ':memory:') createPrivately(path, log);
  const sqlite = new SqliteDatabase(path);
  // busy_timeout makes another process (the other HTTP processes of STOREFRONT_PROCESSES, a separate
  // worker) wait for the write lock instead of failing; WAL lets readers run beside the one writer.
  sqlite.pragma('busy_timeout = 5000');
  switchToWal(sqlite);
  sqlite.pragma('synchronous = NORMAL');
  // With the thread, the commits' own threshold is only a backstop: at 4,000 a burst of writes
  // crossed it between two of the thread's checkpoints, and commits did the copy after all.
  const threshold = checkpointInBackground ? 4 * WAL_CHECKPOINT_PAGES : WAL_CHECKPOINT_PAGES;
  sqlite.pragma(`wal_autocheckpoint = ${threshold}`);
  sqlite.pragma('foreign_keys = ON');
  const kysely = new Kysely<Database>({
    dialect: withAfterCommit(new SqliteWriterDialect({ database: withStatementCache(sqlite) })),
    log: countStatements,
  });
  const checkpoints =
    checkpointInBackground && path !== ':memory:'
      ? startBackgroundCheckpoints(path, log, () => {
          if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
        })
      : null;
  const close = async () => {
    await checkpoints?.stop();
    await kysely.destroy();
  };
  return { kysely, dialect: 'sqlite', poolStats: () => null, close };
}

/**
 * A restart, a failover or a pooler's idle timeout ends idle connections: pg-pool then emits 'error',
 * which without a listener ends the process. The pool has already discarded the client, and the next
 * query opens a fresh connection; one warning per burst says what happened.
 */
function reportLostConnections(pool: pg.Pool, log: DatabaseLog): void {
  let reportedAt = 0;
  let unreported = 0;
  pool.on('error', (error: Error & { code?: string }) => {
    const now = Date.now();
    if (now - reportedAt < LOST_CONNECTION_REPORT_MS) {
      unreported++;
      return;
    }
    log.warn(
      { error: error.message, code: error.code, earlier_unreported: unreported },
      'database connection lost while idle; discarded, the next query opens a fresh one',
    );
    reportedAt = now;
    unreported = 0;
  });
  // A client lent out (between two queries of a transaction) reports its failure to the query that
  // follows; without a listener of its own, that 'error' would end the process as well.
  pool.on('connect', (client) => client.on('error', () => undefined));
}

function openPostgres(url: string, options: OpenOptions): Db {
  const timeouts = options.timeouts;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    keepAlive: true,
    ...(options.searchPath ? { options: `-c search_path=${options.searchPath}` } : {}),
    ...(timeouts && {
      connectionTimeoutMillis: timeouts.connectMs,
      statement_timeout: timeouts.statementMs,
      query_timeout: timeouts.readMs,
    }),
  });
  reportLostConnections(pool, options.log ?? stderrLog());
  const kysely = new Kysely<Database>({
    dialect: withAfterCommit(new SearchPathPostgresDialect({ pool: withNamedStatements(pool) })),
    log: countStatements,
  });
  const poolStats = (): PoolStats => ({
    size: pool.options.max,
    inUse: pool.totalCount - pool.idleCount,
    waiting: pool.waitingCount,
  });
  return { kysely, dialect: 'postgres', poolStats, close: () => kysely.destroy() };
}

/** Opens `sqlite:<path>` or `postgres://…` (already validated by the config). */
export function openDatabase(url: string, options: OpenOptions = {}): Db {
  return url.startsWith('sqlite:')
    ? openSqlite(
        url.slice('sqlite:'.length),
        options.log ?? stderrLog(),
        options.checkpointInBackground ?? false,
      )
    : openPostgres(url, options);
}

/** A unique or primary-key violation, in either database's words. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
