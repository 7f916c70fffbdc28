import type { Kysely } from 'kysely';
import { reusedInsert, reusedQuery } from '../../platform/db/reused-query.js';
import { fromBool } from '../../platform/db/schema.js';
import type { Database, DbBool } from '../../platform/db/schema.js';
import type { PixChargeStatus, PixChargesTable } from './pix-charge-object.js';

/** Every query is scoped by store and mode: a test key never sees a live charge, and the reverse. */
export interface ChargeScope {
  storeId: string;
  livemode: boolean;
}

function scoped(db: Kysely<Database>, scope: ChargeScope) {
  return db
    .selectFrom('pix_charges')
    .selectAll()
    .where('store_id', '=', scope.storeId)
    .where('livemode', '=', fromBool(scope.livemode));
}

const selectCharge = reusedQuery(
  'select charge',
  (db: Kysely<Database>, storeId: string, livemode: DbBool, id: string) =>
    db
      .selectFrom('pix_charges')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('livemode', '=', livemode)
      .where('id', '=', id),
);

export async function findCharge(
  db: Kysely<Database>,
  scope: ChargeScope,
  id: string,
): Promise<PixChargesTable | undefined> {
  return (await selectCharge(db, scope.storeId, fromBool(scope.livemode), id)).rows[0];
}

export function findChargeByExternalId(db: Kysely<Database>, scope: ChargeScope, externalId: string) {
  return scoped(db, scope).where('external_id', '=', externalId).executeTakeFirst();
}

/** The listing, filtered by the status readers see (a pending charge past its time is expired). */
export function listChargesQuery(
  db: Kysely<Database>,
  scope: ChargeScope,
  status: PixChargeStatus | undefined,
  now: string,
) {
  const query = scoped(db, scope);
  switch (status) {
    case undefined:
      return query;
    case 'paid':
      return query.where('status', '=', 'paid');
    case 'canceled':
      return query.where('status', '=', 'canceled');
    case 'pending':
      return query.where('status', '=', 'pending').where('expires_at', '>', now);
    case 'expired':
      return query.where((eb) =>
        eb.or([
          eb('status', '=', 'expired'),
          eb.and([eb('status', '=', 'pending'), eb('expires_at', '<=', now)]),
        ]),
      );
  }
}

/** Throws a unique violation when the store already has a charge with this external_id in this mode. */
const insertChargeRow = reusedInsert('insert pix charge', (db: Kysely<Database>, row: PixChargesTable) =>
  db.insertInto('pix_charges').values(row),
);

export async function insertCharge(db: Kysely<Database>, row: PixChargesTable): Promise<void> {
  await insertChargeRow(db, row);
}

const updatePaid = reusedQuery('mark charge paid', (db: Kysely<Database>, paidAt: string, id: string) =>
  db
    .updateTable('pix_charges')
    .set({ status: 'paid', paid_at: paidAt, next_check_at: null })
    .where('id', '=', id)
    .where('status', 'in', ['pending', 'expired'])
    .where('expires_at', '>', paidAt),
);

/**
 * → paid, only when paid before `expires_at`: of a payment, an expiry, a cancellation and another
 * payment racing on several nodes, exactly one wins. Returns whether this call did. A charge the
 * sweeper already expired still takes a payment its PSP confirms was made in time (the payer's bank
 * time decides, not when the news reached us); a canceled one never does.
 */
export async function markPaid(db: Kysely<Database>, row: PixChargesTable, paidAt: string): Promise<boolean> {
  const result = await updatePaid(db, paidAt, row.id);
  return (result.numAffectedRows ?? 0n) > 0n;
}

/** pending → canceled while not yet due; returns whether this call did it (one event, one winner). */
export async function markCanceled(db: Kysely<Database>, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('pix_charges')
    .set({ status: 'canceled', canceled_at: now, next_check_at: null })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** pending → expired once due; returns whether this call did it (so the event is recorded once). */
export async function markExpired(db: Kysely<Database>, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('pix_charges')
    .set({ status: 'expired' })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** pending → expired now, before its time (test mode's simulated expiry); moves `expires_at` to now. */
export async function markExpiredEarly(db: Kysely<Database>, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('pix_charges')
    .set({ status: 'expired', expires_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Pending charges already due, oldest first, across stores: the sweeper's work list. */
export function findDueCharges(db: Kysely<Database>, now: string, limit: number) {
  return db
    .selectFrom('pix_charges')
    .selectAll()
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}
