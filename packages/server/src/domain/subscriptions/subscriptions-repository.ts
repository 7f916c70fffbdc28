import type { Kysely } from 'kysely';
import { planConstant, planConstants } from '../../platform/db/plan-constant.js';
import { reusedQuery } from '../../platform/db/reused-query.js';
import { fromBool } from '../../platform/db/schema.js';
import type { Database } from '../../platform/db/schema.js';
import { claimableRows } from '../../platform/db/row-locks.js';
import { isoAfter, nowIso } from '../../platform/values/time.js';
import { addDays, localDayStart } from '../../platform/values/local-date.js';
import type {
  SubscriptionCyclesTable,
  SubscriptionStatus,
  SubscriptionsTable,
} from './subscription-object.js';
import { mayStartSubscription } from './subscription-object.js';

/** Every query is scoped by store and mode, like charges: a test key never sees a live subscription. */
export interface SubscriptionScope {
  storeId: string;
  livemode: boolean;
}

function scoped(db: Kysely<Database>, scope: SubscriptionScope) {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('store_id', '=', scope.storeId)
    .where('livemode', '=', fromBool(scope.livemode));
}

export function findSubscription(db: Kysely<Database>, scope: SubscriptionScope, id: string) {
  return scoped(db, scope).where('id', '=', id).executeTakeFirst();
}

/** The subscription a charge pays the first cycle of, if any. */
const selectByFirstCharge = reusedQuery(
  'select subscription by first charge',
  (db: Kysely<Database>, storeId: string, chargeId: string) =>
    db
      .selectFrom('subscriptions')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('first_charge_id', '=', chargeId),
);

/**
 * The subscription a Pix charge is the first charge of, if any. Only a charge whose metadata names a
 * subscription can be one (`mayStartSubscription`): any other costs no query.
 */
export async function findSubscriptionStartedBy(
  db: Kysely<Database>,
  charge: { id: string; store_id: string; metadata: string | null },
): Promise<SubscriptionsTable | undefined> {
  if (!mayStartSubscription(charge.metadata)) return undefined;
  return (await selectByFirstCharge(db, charge.store_id, charge.id)).rows[0];
}

/** What a `rec` callback names: the authorisation's `idRec`. */
export function findSubscriptionByIdRec(db: Kysely<Database>, storeId: string, idRec: string) {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id_rec', '=', idRec)
    .executeTakeFirst();
}

export interface SubscriptionFilters {
  status?: SubscriptionStatus | undefined;
  product_id?: string | undefined;
}

export function listSubscriptionsQuery(
  db: Kysely<Database>,
  scope: SubscriptionScope,
  filters: SubscriptionFilters,
) {
  let query = scoped(db, scope);
  if (filters.status !== undefined) query = query.where('status', '=', filters.status);
  if (filters.product_id !== undefined) query = query.where('product_id', '=', filters.product_id);
  return query;
}

export async function insertSubscription(db: Kysely<Database>, row: SubscriptionsTable): Promise<void> {
  await db.insertInto('subscriptions').values(row).execute();
}

/**
 * Changes a subscription only while it is in one of `from` (and, when given, at cycle `atCycle`):
 * of two outcomes racing on several nodes, exactly one wins. Returns the row as now stored, or null.
 */
export async function moveSubscription(
  db: Kysely<Database>,
  row: SubscriptionsTable,
  from: readonly SubscriptionStatus[],
  changes: Partial<SubscriptionsTable>,
  atCycle?: number,
): Promise<SubscriptionsTable | null> {
  const result = await db
    .updateTable('subscriptions')
    .set(changes)
    .where('id', '=', row.id)
    .where('status', 'in', planConstants(from))
    .$if(atCycle !== undefined, (q) => q.where('cycle', '=', atCycle!))
    .executeTakeFirst();
  return result.numUpdatedRows > 0n ? { ...row, ...changes } : null;
}

export function findCycle(db: Kysely<Database>, subscriptionId: string, cycle: number) {
  return db
    .selectFrom('subscription_cycles')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('cycle', '=', cycle)
    .executeTakeFirst();
}

/** A subscription's cycle charges (cycle 2 on; the first charge is cycle 1), oldest first. */
export function listCycles(db: Kysely<Database>, subscriptionId: string) {
  return db
    .selectFrom('subscription_cycles')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .orderBy('cycle')
    .execute();
}

/** The sales a subscription made (one per paid cycle), in its store and mode, oldest first. */
export function listSubscriptionSales(
  db: Kysely<Database>,
  scope: SubscriptionScope,
  subscriptionId: string,
) {
  return db
    .selectFrom('sales')
    .selectAll()
    .where('store_id', '=', scope.storeId)
    .where('livemode', '=', fromBool(scope.livemode))
    .where('subscription_id', '=', subscriptionId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** What a `cobr` callback names: the cycle charge's txid. */
export function findCycleByTxid(db: Kysely<Database>, storeId: string, txid: string) {
  return db
    .selectFrom('subscription_cycles')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('txid', '=', txid)
    .executeTakeFirst();
}

/** Inserts a cycle's charge unless the cycle has one: returns whether this call did (the unique index decides). */
export async function insertCycle(db: Kysely<Database>, row: SubscriptionCyclesTable): Promise<boolean> {
  const result = await db
    .insertInto('subscription_cycles')
    .values(row)
    .onConflict((oc) => oc.columns(['subscription_id', 'cycle']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Changes a cycle only while its status is one of `from`; returns whether this call did. */
export async function moveCycle(
  db: Kysely<Database>,
  cycle: SubscriptionCyclesTable,
  from: readonly SubscriptionCyclesTable['status'][],
  changes: Partial<SubscriptionCyclesTable>,
  extra: { failedAttempts?: number; retriesRequested?: number } = {},
): Promise<boolean> {
  const result = await db
    .updateTable('subscription_cycles')
    .set(changes)
    .where('id', '=', cycle.id)
    .where('status', 'in', from)
    .$if(extra.failedAttempts !== undefined, (q) => q.where('failed_attempts', '=', extra.failedAttempts!))
    .$if(extra.retriesRequested !== undefined, (q) =>
      q.where('retries_requested', '=', extra.retriesRequested!),
    )
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A day to play: `asOf` for the stores in `timezone`, or for every store (null). */
export interface StoreDay {
  asOf: string;
  timezone: string | null;
}

/**
 * Leases up to `limit` subscriptions with cycle work due by `day` to this scheduler, the way the
 * jobs module claims a queue (platform/jobs/claim-due.ts), except that the work is due on a store's
 * day rather than at a time, so the lease has a column of its own: `claimed_until` is written in the
 * same statement that picks them, and no other scheduler takes them until it runs out. PostgreSQL:
 * FOR UPDATE SKIP LOCKED hands concurrent schedulers disjoint rows and the outer UPDATE re-checks the
 * lease. SQLite: one UPDATE under the one write lock.
 */
export async function claimDueSubscriptions(
  db: Kysely<Database>,
  day: StoreDay,
  storeId: string | undefined,
  limit: number,
  leaseMs: number,
): Promise<SubscriptionsTable[]> {
  const now = nowIso();
  const due = db
    .selectFrom('subscriptions')
    .select('id')
    .where('next_action_date', '<=', day.asOf)
    .where('status', 'in', planConstants(['active', 'past_due'] as const))
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .$if(storeId !== undefined, (q) => q.where('store_id', '=', storeId!))
    .$if(day.timezone !== null, (q) =>
      q.where('store_id', 'in', db.selectFrom('stores').select('id').where('timezone', '=', day.timezone!)),
    )
    .orderBy('next_action_date')
    .limit(limit)
    .$call(claimableRows(db));
  return db
    .updateTable('subscriptions')
    .set({ claimed_until: isoAfter(leaseMs) })
    .where('id', 'in', due)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .returningAll()
    .execute();
}

/**
 * Pending subscriptions whose first charge expired or was canceled unpaid: never authorised, they
 * become `expired` (a conditional update, so a late confirmed payment and this sweep give one outcome).
 * With `asOf` (a run playing that day) a first charge counts as expired when it expires by the end of
 * that day in its store's time zone, rather than by the real clock.
 */
export async function expireUnauthorised(
  db: Kysely<Database>,
  options: { storeId?: string | undefined; asOf?: string | undefined } = {},
): Promise<string[]> {
  const { storeId, asOf } = options;
  const cutoffs: Array<{ before: string; timezone: string | null }> = [];
  if (asOf === undefined) cutoffs.push({ before: nowIso(), timezone: null });
  else {
    const zones = await db
      .selectFrom('stores')
      .select('timezone')
      .distinct()
      .$if(storeId !== undefined, (q) => q.where('id', '=', storeId!))
      .execute();
    for (const { timezone } of zones) {
      cutoffs.push({ before: localDayStart(addDays(asOf, 1), timezone), timezone });
    }
  }
  const expired: string[] = [];
  for (const cutoff of cutoffs) {
    const rows = await db
      .selectFrom('subscriptions')
      .innerJoin('pix_charges', (join) =>
        join
          .onRef('pix_charges.id', '=', 'subscriptions.first_charge_id')
          .onRef('pix_charges.store_id', '=', 'subscriptions.store_id'),
      )
      .selectAll('subscriptions')
      .where('subscriptions.status', '=', planConstant('pending'))
      .where((eb) =>
        eb.or([
          eb('pix_charges.status', 'in', ['expired', 'canceled']),
          eb.and([
            eb('pix_charges.status', '=', 'pending'),
            // The real clock: expired at or before now; a played day: expires before the next one begins.
            cutoff.timezone === null
              ? eb('pix_charges.expires_at', '<=', cutoff.before)
              : eb('pix_charges.expires_at', '<', cutoff.before),
          ]),
        ]),
      )
      .$if(storeId !== undefined, (q) => q.where('subscriptions.store_id', '=', storeId!))
      .$if(cutoff.timezone !== null, (q) =>
        q.where(
          'subscriptions.store_id',
          'in',
          db.selectFrom('stores').select('id').where('timezone', '=', cutoff.timezone!),
        ),
      )
      .execute();
    for (const row of rows) {
      if (await moveSubscription(db, row, ['pending'], { status: 'expired', next_check_at: null })) {
        expired.push(row.id);
      }
    }
  }
  return expired;
}
