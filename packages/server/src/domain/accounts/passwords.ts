import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { ScryptOptions } from 'node:crypto';
import { workGate } from '../../platform/concurrency/work-gate.js';

/**
 * Passwords are stored as scrypt hashes at OWASP's parameters (N = 2^17, r = 8, p = 1: 128 MiB and a
 * few hundred milliseconds per hash), as `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>` (base64url), so
 * stronger parameters later still verify old hashes. node:crypto runs scrypt on the libuv pool, off
 * the event loop.
 */
const LOG2_N = 17;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 200;

/**
 * Every scrypt of the process passes this gate: two at once (256 MiB, two of libuv's four threads),
 * four more waiting, and one client (its IP) holding at most two of those places. Past it a hash is
 * refused at once with GateFullError (the dashboard answers 503 with Retry-After): a flood of logins
 * can neither grow memory nor delay another person's login by more than a few hashes.
 */
export const passwordHashing = workGate({ concurrency: 2, queue: 4, perKey: 2 });

function derive(
  password: string,
  salt: Buffer,
  log2n: number,
  r: number,
  p: number,
  client: string | undefined,
): Promise<Buffer> {
  const N = 2 ** log2n;
  // scrypt needs 128·N·r bytes; Node refuses above `maxmem` (32 MiB by default), so allow that plus slack.
  const options: ScryptOptions = { N, r, p, maxmem: 128 * N * r + 1024 * 1024 };
  return passwordHashing.run(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(password.normalize('NFC'), salt, KEY_BYTES, options, (error, key) =>
          error ? reject(error) : resolve(key),
        ),
      ),
    client,
  );
}

/**
 * The cost of a new hash. A test run may lower it (STOREFRONT_TEST_PASSWORD_COST, log2 N, 10 to 16) so
 * that hundreds of accounts and logins do not each take 128 MiB and most of a second of a busy CPU; it
 * is honoured only inside Vitest (VITEST and NODE_ENV=test, which no deployment sets), and since a hash
 * records its own parameters, verifying never depends on it.
 */
function newHashLog2N(): number {
  const { STOREFRONT_TEST_PASSWORD_COST: cost, VITEST, NODE_ENV } = process.env;
  if (!cost || !VITEST || NODE_ENV !== 'test') return LOG2_N;
  const log2n = Number(cost);
  return Number.isInteger(log2n) && log2n >= 10 && log2n < LOG2_N ? log2n : LOG2_N;
}

/** `client` (the request's IP) bounds one client's share of the hashing gate; none for the CLI. */
export async function hashPassword(password: string, client?: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const log2n = newHashLog2N();
  const key = await derive(password, salt, log2n, R, P, client);
  return ['scrypt', log2n, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const HASH_FORMAT = /^scrypt\$(\d{1,2})\$(\d{1,2})\$(\d{1,2})\$([\w-]+)\$([\w-]+)$/;

/** Constant-time comparison of the derived key; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string, client?: string): Promise<boolean> {
  const match = HASH_FORMAT.exec(stored);
  if (!match) return false;
  const expected = Buffer.from(match[5]!, 'base64url');
  const salt = Buffer.from(match[4]!, 'base64url');
  const key = await derive(password, salt, +match[1]!, +match[2]!, +match[3]!, client);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let dummy: Promise<string> | null = null;

/**
 * A hash of a random password, made once: an unknown e-mail (or an account with no password yet) is
 * verified against it, so the answer takes as long as for a known e-mail with a wrong password.
 */
export function dummyPasswordHash(): Promise<string> {
  // Forgotten when refused by a full gate, so the next login makes it.
  dummy ??= hashPassword(randomBytes(32).toString('base64url')).catch((error: unknown) => {
    dummy = null;
    throw error;
  });
  return dummy;
}

/** Why a password's length is refused (`is shorter than 10 characters`), or null. */
export function passwordLengthProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN_LENGTH) return `is shorter than ${PASSWORD_MIN_LENGTH} characters`;
  if (password.length > PASSWORD_MAX_LENGTH) return `is longer than ${PASSWORD_MAX_LENGTH} characters`;
  return null;
}

/** The same rule in the dashboard's words, shown beside the field. */
export function passwordProblem(password: string): string | null {
  if (passwordLengthProblem(password) === null) return null;
  return `A senha precisa ter de ${PASSWORD_MIN_LENGTH} a ${PASSWORD_MAX_LENGTH} caracteres.`;
}
