import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { newUuid } from '../../platform/values/ids.js';
import { nowIso } from '../../platform/values/time.js';
import { retryOnUniqueViolation } from '../../platform/db/unique-retry.js';
import { lockedRows } from '../../platform/db/row-locks.js';
import { insertInvite, invitedElsewhere } from './invites.js';
import type { Role } from './roles.js';
import { emailKey, isEmail } from './users.js';
import type { OnWrite } from '../kernel/write-context.js';

/** Why a team change was refused; `code` lets the CLI and the dashboard word it each their way. */
export class TeamError extends Error {
  constructor(
    readonly code: 'invalid_email' | 'already_member' | 'not_member' | 'last_owner' | 'not_invited',
    message: string,
  ) {
    super(message);
    this.name = 'TeamError';
  }
}

export interface NewMember {
  storeId: string;
  email: string;
  role: Role;
  /** A ready scrypt hash (`--password-file`), set only on an account that has no password yet. */
  passwordHash?: string;
  /** Make an invite link when the person has no password yet. */
  invite?: boolean;
}

export interface AddedMember {
  id: string;
  email: string;
  store_id: string;
  role: Role;
  /** `invited` until the person accepts (an invite opens nothing); `active` once accepted. */
  status: 'invited' | 'active';
  /** Present when a link was made: the token of `/dashboard/convite/<token>`. */
  inviteToken?: string;
  /** Whether that link sets the account's password (else its person signs in to accept). */
  linkSetsPassword?: boolean;
}

/**
 * The operator's way (CLI, first start): adds a person to a store with a role. Their account is made
 * on first use of the e-mail (any case), an existing account just gains the membership and keeps its
 * password. The operator's word is the acceptance for an account that has a password (given here or
 * before); one without gets an invite (a link that sets the password and accepts this membership, when
 * asked for), even if a store invited it too: the operator is trusted, and sees every store anyway.
 * `onWrite` (its audit entry) runs in the same transaction.
 */
export function addMember(
  db: Kysely<Database>,
  input: NewMember,
  onWrite?: OnWrite<AddedMember>,
): Promise<AddedMember> {
  return insertMembership(
    db,
    input,
    async (_trx, user) => {
      if (user.password_hash !== null) return { accepted: true };
      if (!input.invite) return { accepted: false };
      return { accepted: false, link: { setsPassword: true } };
    },
    onWrite,
  );
}

/**
 * A store owner's invite (Configurações → Equipe): always a pending membership, accepted only by its
 * person through the link, which accepts that membership alone. The link sets the password only for
 * an account with none that no other store has invited: an owner never holds a link that sets the
 * password of someone invited elsewhere; every other person signs in (with their own password) to
 * accept, so an owner who knows an account's password (because they made it) still cannot accept
 * another store's invite without that store's link. `onWrite` runs in the same transaction.
 */
export function inviteMember(
  db: Kysely<Database>,
  input: Pick<NewMember, 'storeId' | 'email' | 'role'>,
  onWrite?: OnWrite<AddedMember>,
): Promise<AddedMember> {
  return insertMembership(
    db,
    input,
    async (trx, user) => ({
      accepted: false,
      link: {
        setsPassword: user.password_hash === null && !(await invitedElsewhere(trx, user.id, input.storeId)),
      },
    }),
    onWrite,
  );
}

type Acceptance = { accepted: boolean; link?: { setsPassword: boolean } };

async function insertMembership(
  db: Kysely<Database>,
  input: NewMember,
  decide: (
    trx: Transaction<Database>,
    user: { id: string; password_hash: string | null },
  ) => Promise<Acceptance>,
  onWrite?: OnWrite<AddedMember>,
): Promise<AddedMember> {
  const email = input.email.trim();
  if (!isEmail(email)) throw new TeamError('invalid_email', `"${input.email}" is not an e-mail address`);
  // A first use of the same e-mail by two requests at once: the second sees the first's user.
  return retryOnUniqueViolation(2, () =>
    db.transaction().execute(async (trx) => {
      const now = nowIso();
      let user = await trx
        .selectFrom('users')
        .select(['id', 'email', 'password_hash'])
        .where('email_key', '=', emailKey(email))
        .executeTakeFirst();
      if (!user) {
        user = { id: newUuid(), email, password_hash: input.passwordHash ?? null };
        await trx
          .insertInto('users')
          .values({
            ...user,
            email_key: emailKey(email),
            totp_secret_sealed: null,
            totp_last_step: null,
            created_at: now,
          })
          .execute();
      } else if (user.password_hash === null && input.passwordHash !== undefined) {
        await trx
          .updateTable('users')
          .set({ password_hash: input.passwordHash })
          .where('id', '=', user.id)
          .execute();
        user.password_hash = input.passwordHash;
      }
      const member = await trx
        .selectFrom('memberships')
        .select('role')
        .where('user_id', '=', user.id)
        .where('store_id', '=', input.storeId)
        .executeTakeFirst();
      if (member) throw new TeamError('already_member', `${user.email} is already a member of this store`);
      const { accepted, link } = await decide(trx, user);
      await trx
        .insertInto('memberships')
        .values({
          user_id: user.id,
          store_id: input.storeId,
          role: input.role,
          created_at: now,
          accepted_at: accepted ? now : null,
        })
        .execute();
      const added: AddedMember = {
        id: user.id,
        email: user.email,
        store_id: input.storeId,
        role: input.role,
        status: accepted ? 'active' : 'invited',
      };
      if (link) {
        added.inviteToken = await insertInvite(trx, user.id, input.storeId, link.setsPassword);
        added.linkSetsPassword = link.setsPassword;
      }
      await onWrite?.(trx, added);
      return added;
    }),
  );
}

/**
 * A new link for a membership not accepted yet (its invite expired, or was lost): the old link stops
 * working. Whether it sets the password is read afresh, by the rule of `inviteMember` for an owner
 * and of `addMember` for the operator (`byOperator`).
 */
export async function renewInvite(
  db: Kysely<Database>,
  storeId: string,
  email: string,
  { byOperator = false, onWrite }: { byOperator?: boolean; onWrite?: OnWrite<RenewedInvite> } = {},
): Promise<RenewedInvite> {
  return db.transaction().execute(async (trx) => {
    const member = await memberByEmail(trx, storeId, email);
    if (member.accepted_at !== null) {
      throw new TeamError('not_invited', `${member.email} already accepted the invite`);
    }
    const linkSetsPassword =
      member.password_hash === null && (byOperator || !(await invitedElsewhere(trx, member.id, storeId)));
    const inviteToken = await insertInvite(trx, member.id, storeId, linkSetsPassword);
    const renewed = { id: member.id, email: member.email, role: member.role, inviteToken, linkSetsPassword };
    await onWrite?.(trx, renewed);
    return renewed;
  });
}

export interface RenewedInvite {
  id: string;
  email: string;
  role: Role;
  inviteToken: string;
  linkSetsPassword: boolean;
}

export interface Member {
  id: string;
  email: string;
  role: Role;
  /** Has not accepted the invite yet (whatever the account's state elsewhere). */
  pending: boolean;
  two_step: boolean;
  created_at: string;
}

export async function listMembers(db: Kysely<Database>, storeId: string): Promise<Member[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select([
      'users.id',
      'users.email',
      'memberships.role',
      'memberships.accepted_at',
      'users.totp_secret_sealed',
      'memberships.created_at',
    ])
    .where('memberships.store_id', '=', storeId)
    .orderBy('memberships.created_at', 'asc')
    .orderBy('users.id', 'asc')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    role: row.role,
    pending: row.accepted_at === null,
    // A person's own settings are theirs to tell only once they joined.
    two_step: row.accepted_at !== null && row.totp_secret_sealed !== null,
    created_at: row.created_at,
  }));
}

/** A member of the store found by e-mail (any case), in the caller's transaction. */
async function memberByEmail(trx: Kysely<Database>, storeId: string, email: string) {
  const member = await trx
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email', 'users.password_hash', 'memberships.role', 'memberships.accepted_at'])
    .where('memberships.store_id', '=', storeId)
    .where('users.email_key', '=', emailKey(email))
    .executeTakeFirst();
  if (!member) throw new TeamError('not_member', `${email} is not a member of this store`);
  return member;
}

/**
 * Team changes of one store take turns: the store's row is locked (PostgreSQL; SQLite transactions
 * here take the single write lock when they begin) before anything is read, so two owners demoting
 * or removing each other at once are serialised: the second reads after the first committed and is
 * refused, and the store never ends with no owner.
 */
async function lockStoreRow(trx: Kysely<Database>, storeId: string): Promise<void> {
  await trx.selectFrom('stores').select('id').where('id', '=', storeId).$call(lockedRows(trx)).execute();
}

/**
 * Refuses a change that would take the store's only owner away (after `lockStoreRow`); only accepted
 * owners count, an invited one runs nothing yet.
 */
async function keepAnOwner(
  trx: Kysely<Database>,
  storeId: string,
  member: { email: string; role: Role; accepted_at: string | null },
  what: string,
): Promise<void> {
  if (member.role !== 'owner' || member.accepted_at === null) return;
  const owners = await trx
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('store_id', '=', storeId)
    .where('role', '=', 'owner')
    .where('accepted_at', 'is not', null)
    .executeTakeFirstOrThrow();
  if (Number(owners.n) <= 1) {
    throw new TeamError('last_owner', `${member.email} is the store's only owner and cannot be ${what}`);
  }
}

/**
 * Takes a person out of a store: the membership, their sessions on this store and their open
 * invites to it go at once. The last owner stays: a store always has someone who can run it.
 * `onWrite` (its audit entry) runs in the same transaction.
 */
export async function removeMember(
  db: Kysely<Database>,
  storeId: string,
  email: string,
  onWrite?: OnWrite<{ email: string; role: Role }>,
): Promise<{ id: string; email: string; role: Role }> {
  return db.transaction().execute(async (trx) => {
    await lockStoreRow(trx, storeId);
    const member = await memberByEmail(trx, storeId, email);
    await keepAnOwner(trx, storeId, member, 'removed');
    await trx
      .deleteFrom('memberships')
      .where('store_id', '=', storeId)
      .where('user_id', '=', member.id)
      .execute();
    await trx
      .deleteFrom('dashboard_sessions')
      .where('store_id', '=', storeId)
      .where('user_id', '=', member.id)
      .execute();
    await trx
      .deleteFrom('invites')
      .where('store_id', '=', storeId)
      .where('user_id', '=', member.id)
      .execute();
    const removed = { id: member.id, email: member.email, role: member.role };
    await onWrite?.(trx, removed);
    return removed;
  });
}

/**
 * Gives a member another role; it applies to their open sessions at their next request (a session
 * reads the role from the membership). The last owner cannot step down. Answers the role before.
 * `onWrite` (its audit entry) runs in the same transaction.
 */
export async function changeMemberRole(
  db: Kysely<Database>,
  storeId: string,
  email: string,
  role: Role,
  onWrite?: OnWrite<{ email: string; from: Role; to: Role }>,
): Promise<{ id: string; email: string; from: Role; to: Role }> {
  return db.transaction().execute(async (trx) => {
    await lockStoreRow(trx, storeId);
    const member = await memberByEmail(trx, storeId, email);
    if (member.role === role) return { id: member.id, email: member.email, from: role, to: role };
    await keepAnOwner(trx, storeId, member, 'demoted');
    await trx
      .updateTable('memberships')
      .set({ role })
      .where('store_id', '=', storeId)
      .where('user_id', '=', member.id)
      .execute();
    const changed = { id: member.id, email: member.email, from: member.role, to: role };
    await onWrite?.(trx, changed);
    return changed;
  });
}
