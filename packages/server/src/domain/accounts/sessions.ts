import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { hmacSha256 } from '../../platform/values/hmac.js';
import { isoAfter } from '../../platform/values/time.js';
import type { Role } from './roles.js';
import { hashSecretToken, newSecretToken } from './secret-token.js';

/** `verify`: the password was right and the TOTP code is still due; `active`: signed in. */
export type SessionStage = 'verify' | 'active';

export interface DashboardSessionsTable {
  id_hash: string;
  user_id: string;
  store_id: string;
  stage: SessionStage;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    dashboard_sessions: DashboardSessionsTable;
  }
}

/** 256 random bits in the cookie; ends after 12 h without a request, and 7 days after login in any case. */
const SESSION_ID_BYTES = 32;
export const SESSION_IDLE_MS = 12 * 3600_000;
export const SESSION_ABSOLUTE_MS = 7 * 24 * 3600_000;
/** The time to type the TOTP code after the password. */
const VERIFY_STAGE_MS = 10 * 60_000;
/** `last_seen_at` is written at most this often: not a write per page view. */
const TOUCH_EVERY_MS = 60_000;

/** A new session (a new id at every login) and the cookie value naming it. */
export async function createSession(
  db: Kysely<Database>,
  input: { userId: string; storeId: string; stage: SessionStage },
): Promise<string> {
  const { token, hash } = newSecretToken(SESSION_ID_BYTES);
  const now = new Date();
  await db
    .insertInto('dashboard_sessions')
    .values({
      id_hash: hash,
      user_id: input.userId,
      store_id: input.storeId,
      stage: input.stage,
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: isoAfter(input.stage === 'verify' ? VERIFY_STAGE_MS : SESSION_ABSOLUTE_MS, now),
    })
    .execute();
  return token;
}

export interface SignedInSession {
  idHash: string;
  stage: SessionStage;
  userId: string;
  email: string;
  storeId: string;
  storeName: string;
  /** The store's IANA time zone: the dashboard shows instants and counts days in it. */
  storeTimezone: string;
  role: Role;
}

/**
 * The live session a cookie names, with its person and their role in the session's store; undefined
 * when unknown, expired (idle or absolute) or when the person is no longer (or not yet: an invite) a member of that store.
 */
export async function findSession(db: Kysely<Database>, token: string): Promise<SignedInSession | undefined> {
  const now = new Date();
  const row = await db
    .selectFrom('dashboard_sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('memberships as m', (join) =>
      join
        .onRef('m.user_id', '=', 's.user_id')
        .onRef('m.store_id', '=', 's.store_id')
        // An invite not yet accepted opens nothing.
        .on('m.accepted_at', 'is not', null),
    )
    .innerJoin('stores as st', 'st.id', 's.store_id')
    .select([
      's.id_hash',
      's.stage',
      's.last_seen_at',
      'u.id',
      'u.email',
      's.store_id',
      'st.name',
      'st.timezone',
      'm.role',
    ])
    .where('s.id_hash', '=', hashSecretToken(token))
    .where('s.expires_at', '>', now.toISOString())
    .where('s.last_seen_at', '>', isoAfter(-SESSION_IDLE_MS, now))
    .executeTakeFirst();
  if (!row) return undefined;
  if (now.getTime() - Date.parse(row.last_seen_at) > TOUCH_EVERY_MS) {
    await db
      .updateTable('dashboard_sessions')
      .set({ last_seen_at: now.toISOString() })
      .where('id_hash', '=', row.id_hash)
      .execute();
  }
  return {
    idHash: row.id_hash,
    stage: row.stage,
    userId: row.id,
    email: row.email,
    storeId: row.store_id,
    storeName: row.name,
    storeTimezone: row.timezone,
    role: row.role,
  };
}

/** The CSRF token of a session: derived from its cookie value, so nothing more is stored. */
export function csrfTokenOf(secret: string, sessionToken: string): string {
  return hmacSha256(secret, `storefront/dashboard-csrf/v1:${sessionToken}`).toString('base64url');
}

export async function endSession(db: Kysely<Database>, idHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
}

/** After a password change: every session of the person but the one that changed it. */
export async function endOtherSessions(
  db: Kysely<Database>,
  userId: string,
  keepIdHash: string,
): Promise<void> {
  await db
    .deleteFrom('dashboard_sessions')
    .where('user_id', '=', userId)
    .where('id_hash', '<>', keepIdHash)
    .execute();
}

/** After a reset (password or two-step): every session of the person ends. */
export async function endAllSessions(db: Kysely<Database>, userId: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('user_id', '=', userId).execute();
}

/** The store a session looks at, after the person picked another of theirs. */
export async function switchSessionStore(
  db: Kysely<Database>,
  idHash: string,
  storeId: string,
): Promise<void> {
  await db
    .updateTable('dashboard_sessions')
    .set({ store_id: storeId })
    .where('id_hash', '=', idHash)
    .execute();
}
