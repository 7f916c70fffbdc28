/**
 * Telling "the database is not there right now" apart from "this statement is wrong": the first is a
 * 503 a client retries, and a connection that failed that way is never lent out again.
 */

type ErrorLike = { code?: unknown; message?: unknown } | null | undefined;

/** Socket-level failures Node reports while connecting to or talking with PostgreSQL. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** pg's own words for a connection that broke, timed out or never came (it gives them no code). */
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'is not queryable',
];

/**
 * SQLSTATEs of an unavailable server: class 08 (connection exception), 57P01-57P03 (terminated by an
 * administrator, crash shutdown, cannot connect now), 53300 (too many connections).
 */
function isUnavailableState(code: string): boolean {
  return code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300';
}

/** The connection itself failed: it must be closed, not handed to the next query. */
export function isConnectionFailure(error: unknown): boolean {
  const { code, message } = (error ?? {}) as ErrorLike & object;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || isUnavailableState(code))) return true;
  return typeof message === 'string' && PG_CONNECTION_MESSAGES.some((words) => message.includes(words));
}

/**
 * A failure a retry a moment later can succeed at: the connection failed, PostgreSQL cancelled a
 * statement past its `statement_timeout` (57014), or SQLite stayed locked past its busy timeout.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as ErrorLike)?.code;
  return isConnectionFailure(error) || code === '57014' || code === 'SQLITE_BUSY';
}
