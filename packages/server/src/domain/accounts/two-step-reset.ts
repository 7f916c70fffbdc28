import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { AuditEntry } from './audit.js';
import { audit, auditEveryStore } from './audit.js';
import type { Actor } from '../kernel/write-context.js';
import { endAllSessions } from './sessions.js';
import { emailKey } from './users.js';

/**
 * The lost phone: turns a person's two-step verification off and ends every session of theirs, so
 * the next login asks for the password alone (and they can turn it on again with a new phone).
 * Audited in `stores` (the owner's store) or, when null, in every store of the person; in `trx`.
 * False when it was not on.
 */
export async function resetTwoStep(
  trx: Transaction<Database>,
  userId: string,
  entry: Omit<AuditEntry, 'storeId' | 'action'>,
  storeId: string | null,
  /** Who did it when not the person signed in: the operator's CLI. */
  by?: Actor,
): Promise<boolean> {
  const cleared = await trx
    .updateTable('users')
    .set({ totp_secret_sealed: null, totp_last_step: null })
    .where('id', '=', userId)
    .where('totp_secret_sealed', 'is not', null)
    .executeTakeFirst();
  if (Number(cleared.numUpdatedRows) !== 1) return false;
  await endAllSessions(trx, userId);
  if (storeId) await audit(trx, { ...entry, storeId, action: 'totp_reset' });
  else await auditEveryStore(trx, userId, { ...entry, action: 'totp_reset' }, by);
  return true;
}

export interface TwoStepResetTarget {
  userId: string;
  email: string;
  /** How many other stores the person belongs to: an owner may reset only someone of theirs alone. */
  otherStores: number;
}

/** A member of the store by e-mail, with how many other stores they belong to; undefined when not one. */
export async function twoStepResetTarget(
  db: Kysely<Database>,
  storeId: string,
  email: string,
): Promise<TwoStepResetTarget | undefined> {
  const person = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.id', 'users.email'])
    .where('memberships.store_id', '=', storeId)
    .where('users.email_key', '=', emailKey(email))
    .executeTakeFirst();
  if (!person) return undefined;
  const others = await db
    .selectFrom('memberships')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('user_id', '=', person.id)
    .where('store_id', '<>', storeId)
    .executeTakeFirstOrThrow();
  return { userId: person.id, email: person.email, otherStores: Number(others.n) };
}
