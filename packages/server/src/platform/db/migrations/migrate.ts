import { Migrator, sql } from 'kysely';
import type { Kysely, Migration, MigrationResultSet } from 'kysely';
import { SERVING, openDatabase } from '../database.js';
import type { Db, OpenOptions } from '../database.js';
import { migrations } from './index.js';

/**
 * On PostgreSQL, Kysely looks for its bookkeeping tables in every schema unless told which one; with
 * several schemas in one database (tests, or tenants) it would find another schema's lock table.
 */
async function currentSchema(db: Kysely<unknown>): Promise<string | undefined> {
  try {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema;
  } catch {
    return undefined; // SQLite has no schemas
  }
}

/**
 * Applies every pending migration; the same set runs on SQLite and PostgreSQL. `only` (tests of a
 * migration) stops at an older set, as a database made by an older release.
 */
export async function migrateToLatest<DB>(
  kysely: Kysely<DB>,
  only: Record<string, Migration> = migrations,
): Promise<MigrationResultSet> {
  const db = kysely as Kysely<unknown>;
  const schema = await currentSchema(db);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => only },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const result = schema
    ? await migrator.migrateToLatest()
    : await exclusively(db, () => migrator.migrateToLatest());
  if (result.error) throw result.error;
  return result;
}

/**
 * Kysely neither locks nor wraps migrations on SQLite, so two processes starting at once on a fresh
 * file both ran them ("table already exists"). One IMMEDIATE transaction around the whole run makes
 * the second wait for the first (busy_timeout) and then find nothing left to do; a failed run leaves
 * nothing half-applied.
 */
async function exclusively(
  db: Kysely<unknown>,
  run: () => Promise<MigrationResultSet>,
): Promise<MigrationResultSet> {
  await sql`begin immediate`.execute(db);
  let result: MigrationResultSet | undefined;
  try {
    result = await run();
  } finally {
    await sql.raw(result && !result.error ? 'commit' : 'rollback').execute(db);
  }
  return result;
}

/** The database could not be reached or opened at start: said in one line, not a stack trace. */
export class DatabaseUnreachable extends Error {
  override name = 'DatabaseUnreachable';
}

/** Network failures, and PostgreSQL's connection (08), authorization (28) and unknown-database (3D000) errors. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);
const SQLITE_CANNOT_OPEN = new Set(['SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_NOTADB']);

/** The URL without its password, fit for a message. */
function shownUrl(url: string): string {
  if (url.startsWith('sqlite:')) return url;
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

function unreachable(url: string, error: unknown): DatabaseUnreachable | null {
  const { code, message } = error as { code?: unknown; message?: string };
  const known =
    typeof code === 'string' &&
    (NETWORK_CODES.has(code) || SQLITE_CANNOT_OPEN.has(code) || /^(08|28)...$|^3D000$/.test(code));
  // pg's own connect timeout carries no code.
  if (!known && !/^Connection terminated/.test(message ?? '')) return null;
  return new DatabaseUnreachable(`cannot use the database at ${shownUrl(url)}: ${message || code}`);
}

/**
 * What `serve` and `storefront worker` start on: migrations run first on a connection of their own
 * without the serving timeouts (a migration on a large table may take long), then the serving pool
 * opens with them.
 */
export async function openServingDatabase(url: string, log: OpenOptions['log']): Promise<Db> {
  const migrating = openDatabase(url, { ...(log && { log }) });
  try {
    await migrateToLatest(migrating.kysely);
  } catch (error) {
    throw unreachable(url, error) ?? error;
  } finally {
    await migrating.close();
  }
  return openDatabase(url, { ...SERVING, ...(log && { log }) });
}
