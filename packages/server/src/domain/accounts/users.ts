import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { Role } from './roles.js';

export interface UsersTable {
  id: string;
  email: string;
  email_key: string;
  password_hash: string | null;
  totp_secret_sealed: string | null;
  totp_last_step: number | null;
  created_at: string;
}

export interface MembershipsTable {
  user_id: string;
  store_id: string;
  role: Role;
  created_at: string;
  /** When the person accepted it; null while it is an invite (it opens nothing yet). */
  accepted_at: string | null;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    users: UsersTable;
    memberships: MembershipsTable;
  }
}

/** The e-mail as compared: trimmed and lower-cased, so `Ana@Loja.com` and `ana@loja.com` are one person. */
export const emailKey = (email: string): string => email.trim().toLowerCase();

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const EMAIL_MAX_LENGTH = 254;

export function isEmail(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(value.trim());
}

export function findUserByEmail(db: Kysely<Database>, email: string): Promise<UsersTable | undefined> {
  return db.selectFrom('users').selectAll().where('email_key', '=', emailKey(email)).executeTakeFirst();
}

export function findUser(db: Kysely<Database>, id: string): Promise<UsersTable | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface StoreMembership {
  store_id: string;
  store_name: string;
  role: Role;
}

/**
 * The stores a person belongs to, oldest membership first (the one a login opens): accepted
 * memberships only, so an invite (pending) neither opens a store nor receives the person's audit.
 */
export function membershipsOf(db: Kysely<Database>, userId: string): Promise<StoreMembership[]> {
  return db
    .selectFrom('memberships')
    .innerJoin('stores', 'stores.id', 'memberships.store_id')
    .select(['memberships.store_id', 'stores.name as store_name', 'memberships.role'])
    .where('memberships.user_id', '=', userId)
    .where('memberships.accepted_at', 'is not', null)
    .orderBy('memberships.created_at', 'asc')
    .orderBy('memberships.store_id', 'asc')
    .execute();
}
