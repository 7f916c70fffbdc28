import type { Kysely, Transaction } from 'kysely';
import type { Database, DbBool } from '../../platform/db/schema.js';
import { fromBool } from '../../platform/db/schema.js';
import { isoAfter, nowIso } from '../../platform/values/time.js';
import type { OnWrite } from '../kernel/write-context.js';
import { hashSecretToken, newSecretToken } from './secret-token.js';

export interface InvitesTable {
  token_hash: string;
  user_id: string;
  store_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** Whether the link may set the account's password (see `insertInvite`). */
  sets_password: DbBool;
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

/**
 * A new invite link for the person's pending membership of a store; only its hash is stored, and the
 * membership's earlier unused links stop working (a link sent again replaces the old one). The link
 * accepts that one membership. `setsPassword`: whether its holder may also set the account's
 * password; the caller decides (an owner's link never may for an account invited elsewhere).
 */
export async function insertInvite(
  db: Kysely<Database> | Transaction<Database>,
  userId: string,
  storeId: string,
  setsPassword: boolean,
): Promise<string> {
  const { token, hash } = newSecretToken(INVITE_TOKEN_BYTES);
  const now = new Date();
  await db
    .deleteFrom('invites')
    .where('user_id', '=', userId)
    .where('store_id', '=', storeId)
    .where('used_at', 'is', null)
    .execute();
  await db
    .insertInto('invites')
    .values({
      token_hash: hash,
      user_id: userId,
      store_id: storeId,
      created_at: now.toISOString(),
      expires_at: isoAfter(INVITE_TTL_MS, now),
      used_at: null,
      sets_password: fromBool(setsPassword),
    })
    .execute();
  return token;
}

/**
 * Whether the account has a membership (pending or accepted) of a store other than `storeId`: an
 * owner's link then never sets the password, which would hand the other store's invite to them.
 */
export async function invitedElsewhere(
  db: Kysely<Database> | Transaction<Database>,
  userId: string,
  storeId: string,
): Promise<boolean> {
  const other = await db
    .selectFrom('memberships')
    .select('store_id')
    .where('user_id', '=', userId)
    .where('store_id', '<>', storeId)
    .executeTakeFirst();
  return other !== undefined;
}

export interface OpenInvite {
  tokenHash: string;
  userId: string;
  email: string;
  storeId: string;
  storeName: string;
  /**
   * `set-password`: the account has no password and this link may set it (then it is signed in);
   * `sign-in`: the account has a password, and only its person, signed in, accepts;
   * `blocked`: the account has no password and this link may not set it (another store invited it).
   */
  mode: 'set-password' | 'sign-in' | 'blocked';
}

/**
 * The invite a token opens: unused, unexpired, for a membership not accepted yet. A link that may set
 * the password does so only while the account has none (once anyone set it, it asks to sign in); a
 * link that may not (made while another store had invited the account) may once that store's
 * membership is gone.
 */
export async function findOpenInvite(db: Kysely<Database>, token: string): Promise<OpenInvite | undefined> {
  if (!TOKEN_SHAPE.test(token)) return undefined;
  const row = await db
    .selectFrom('invites')
    .innerJoin('users', 'users.id', 'invites.user_id')
    .innerJoin('stores', 'stores.id', 'invites.store_id')
    .innerJoin('memberships', (join) =>
      join
        .onRef('memberships.user_id', '=', 'invites.user_id')
        .onRef('memberships.store_id', '=', 'invites.store_id'),
    )
    .select([
      'invites.token_hash',
      'invites.sets_password',
      'users.id',
      'users.email',
      'users.password_hash',
      'stores.id as store_id',
      'stores.name',
    ])
    .where('invites.token_hash', '=', hashSecretToken(token))
    .where('invites.used_at', 'is', null)
    .where('invites.expires_at', '>', nowIso())
    .where('memberships.accepted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const mode =
    row.password_hash !== null
      ? 'sign-in'
      : row.sets_password === 1 || !(await invitedElsewhere(db, row.id, row.store_id))
        ? 'set-password'
        : 'blocked';
  return {
    tokenHash: row.token_hash,
    userId: row.id,
    email: row.email,
    storeId: row.store_id,
    storeName: row.name,
    mode,
  };
}

/**
 * Spends the invite and accepts its membership (that one only), and with `passwordHash` sets the
 * account's password (which must still be unset), in one transaction; false when another request
 * spent it, set the password or removed the membership first.
 */
export async function acceptInvite(
  db: Kysely<Database>,
  invite: OpenInvite,
  passwordHash: string | null,
  /** Its audit entry, in the same transaction. */
  onWrite?: OnWrite<OpenInvite>,
): Promise<boolean> {
  return db
    .transaction()
    .execute(async (trx) => {
      const now = nowIso();
      const spent = await trx
        .updateTable('invites')
        .set({ used_at: now })
        .where('token_hash', '=', invite.tokenHash)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      if (Number(spent.numUpdatedRows) !== 1) return false;
      if (passwordHash !== null) {
        const set = await trx
          .updateTable('users')
          .set({ password_hash: passwordHash })
          .where('id', '=', invite.userId)
          .where('password_hash', 'is', null)
          .executeTakeFirst();
        if (Number(set.numUpdatedRows) !== 1) throw new InviteSpentError();
      }
      const accepted = await trx
        .updateTable('memberships')
        .set({ accepted_at: now })
        .where('user_id', '=', invite.userId)
        .where('store_id', '=', invite.storeId)
        .where('accepted_at', 'is', null)
        .executeTakeFirst();
      if (Number(accepted.numUpdatedRows) !== 1) throw new InviteSpentError();
      await onWrite?.(trx, invite);
      return true;
    })
    .catch((error: unknown) => {
      if (error instanceof InviteSpentError) return false;
      throw error;
    });
}

/** Rolls the invite's spending back when the password was set, or the membership changed, meanwhile. */
class InviteSpentError extends Error {}
