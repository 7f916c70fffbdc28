import type { Kysely } from 'kysely';
import { fromBool } from '../../platform/db/schema.js';
import type { Database } from '../../platform/db/schema.js';
import type {
  SubscriptionCyclesTable,
  SubscriptionStatus,
  SubscriptionsTable,
} from './subscription-object.js';

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
export function findSubscriptionByCharge(db: Kysely<Database>, storeId: string, chargeId: string) {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('first_charge_id', '=', chargeId)
    .executeTakeFirst();
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
    .where('status', 'in', from)
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
