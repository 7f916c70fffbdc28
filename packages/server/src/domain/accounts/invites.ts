import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { isoAfter, nowIso } from '../../platform/values/time.js';
import { hashSecretToken, newSecretToken } from './secret-token.js';

export interface InvitesTable {
  token_hash: string;
  user_id: string;
  store_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    invites: InvitesTable;
  }
}

/** 128 random bits, valid 72 hours, good once. */
const INVITE_TOKEN_BYTES = 16;
export const INVITE_TTL_MS = 72 * 3600_000;
export const INVITE_PATH = '/dashboard/convite';
const TOKEN_SHAPE = /^[\w-]{22}$/;

/** The link an invite is used at, on the service's public origin. */
export const inviteUrl = (publicUrl: string, token: string): string => `${publicUrl}${INVITE_PATH}/${token}`;

/** A new invite link's token for a person without a password yet; only its hash is stored. */
export async function insertInvite(
  db: Kysely<Database> | Transaction<Database>,
  userId: string,
  storeId: string,
): Promise<string> {
  const { token, hash } = newSecretToken(INVITE_TOKEN_BYTES);
  const now = new Date();
  await db
    .insertInto('invites')
    .values({
      token_hash: hash,
      user_id: userId,
      store_id: storeId,
      created_at: now.toISOString(),
      expires_at: isoAfter(INVITE_TTL_MS, now),
      used_at: null,
    })
    .execute();
  return token;
}

export interface OpenInvite {
  tokenHash: string;
  userId: string;
  email: string;
  storeId: string;
  storeName: string;
}

/**
 * The invite a token opens: unused, unexpired, for a person who has no password yet (once anyone set
 * it, through this invite or another, every other link of theirs is spent).
 */
export async function findOpenInvite(db: Kysely<Database>, token: string): Promise<OpenInvite | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const row = await db
    .selectFrom('invites')
    .innerJoin('users', 'users.id', 'invites.user_id')
    .innerJoin('stores', 'stores.id', 'invites.store_id')
    .select(['invites.token_hash', 'users.id', 'users.email', 'stores.id as store_id', 'stores.name'])
    .where('invites.token_hash', '=', hashSecretToken(token))
    .where('invites.used_at', 'is', null)
    .where('invites.expires_at', '>', nowIso())
    .where('users.password_hash', 'is', null)
    .executeTakeFirst();
  return (
    row && {
      tokenHash: row.token_hash,
      userId: row.id,
      email: row.email,
      storeId: row.store_id,
      storeName: row.name,
    }
  );
}

/**
 * Sets the invited person's password and spends the invite, in one transaction; false when another
 * request spent it (or set the password) first.
 */
export async function acceptInvite(
  db: Kysely<Database>,
  invite: OpenInvite,
  passwordHash: string,
): Promise<boolean> {
  return db
    .transaction()
    .execute(async (trx) => {
      const spent = await trx
        .updateTable('invites')
        .set({ used_at: nowIso() })
        .where('token_hash', '=', invite.tokenHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(spent.numUpdatedRows) !== 1) return false;
      const set = await trx
        .updateTable('users')
        .set({ password_hash: passwordHash })
        .where('id', '=', invite.userId)
        .where('password_hash', 'is', null)
        .executeTakeFirst();
      if (Number(set.numUpdatedRows) !== 1) throw new InviteSpentError();
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof InviteSpentError) return false;
      throw error;
    });
}

/** Rolls the invite's spending back when the password was set meanwhile. */
class InviteSpentError extends Error {}
