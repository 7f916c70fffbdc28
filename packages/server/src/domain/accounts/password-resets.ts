import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { isoAfter, nowIso } from '../../platform/values/time.js';
import { auditEveryStore } from './audit.js';
import type { Actor } from '../kernel/write-context.js';
import { hashSecretToken, newSecretToken } from './secret-token.js';
import { endAllSessions } from './sessions.js';

export interface PasswordResetsTable {
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    password_resets: PasswordResetsTable;
  }
}

/** 256 random bits, valid one hour, good once; only the SHA-256 is stored. */
const RESET_TOKEN_BYTES = 32;
export const PASSWORD_RESET_TTL_MS = 3600_000;
export const PASSWORD_RESET_PATH = '/dashboard/login/redefinir';
const TOKEN_SHAPE = /^[\w-]{43}$/;

export const passwordResetUrl = (publicUrl: string, token: string): string =>
  `${publicUrl}${PASSWORD_RESET_PATH}/${token}`;

/** A new reset link's token for the person; earlier open links of theirs stay good until used or expired. */
export async function insertPasswordReset(db: Kysely<Database>, userId: string): Promise<string> {
  const { token, hash } = newSecretToken(RESET_TOKEN_BYTES);
  const now = new Date();
  await db
    .insertInto('password_resets')
    .values({
      token_hash: hash,
      user_id: userId,
      created_at: now.toISOString(),
      expires_at: isoAfter(PASSWORD_RESET_TTL_MS, now),
      used_at: null,
    })
    .execute();
  return token;
}

export interface OpenPasswordReset {
  tokenHash: string;
  userId: string;
  email: string;
}

/** The unused, unexpired reset a token opens. */
export async function findOpenPasswordReset(
  db: Kysely<Database>,
  token: string,
): Promise<OpenPasswordReset | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const row = await db
    .selectFrom('password_resets')
    .innerJoin('users', 'users.id', 'password_resets.user_id')
    .select(['password_resets.token_hash', 'users.id', 'users.email'])
    .where('password_resets.token_hash', '=', hashSecretToken(token))
    .where('password_resets.used_at', 'is', null)
    .where('password_resets.expires_at', '>', nowIso())
    .executeTakeFirst();
  return row && { tokenHash: row.token_hash, userId: row.id, email: row.email };
}

/**
 * Sets a person's password as a reset does (a link, or the operator): every session of theirs ends,
 * every open reset link of theirs is spent, and the change is in the audit log of every store they
 * belong to, all in one transaction. Memberships are untouched: a pending one stays pending.
 */
export async function replacePassword(
  trx: Transaction<Database>,
  userId: string,
  passwordHash: string,
  audit: { detail: string; ip: string | null; userId: string | null },
  /** Who did it when not the person (the operator's CLI). */
  by?: Actor,
): Promise<void> {
  await trx.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
  await trx
    .updateTable('password_resets')
    .set({ used_at: nowIso() })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
  await endAllSessions(trx, userId);
  await auditEveryStore(trx, userId, { action: 'password_reset', ...audit }, by);
}

/**
 * Uses a reset link: spends it and sets the password (see replacePassword); false when another
 * request spent it first.
 */
export function completePasswordReset(
  db: Kysely<Database>,
  reset: OpenPasswordReset,
  passwordHash: string,
  ip: string,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const spent = await trx
      .updateTable('password_resets')
      .set({ used_at: nowIso() })
      .where('token_hash', '=', reset.tokenHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', nowIso())
      .executeTakeFirst();
    if (Number(spent.numUpdatedRows) !== 1) return false;
    await replacePassword(trx, reset.userId, passwordHash, { detail: reset.email, ip, userId: reset.userId });
    return true;
  });
}
