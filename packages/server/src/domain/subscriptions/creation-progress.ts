import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { fromBool } from '../../platform/db/schema.js';
import { ApiError } from '../../platform/http/api-error.js';
import { prefixedId } from '../../platform/values/ids.js';
import { isoAfter, nowIso } from '../../platform/values/time.js';

/** A subscription creation's progress at the PSP (table `subscription_creations`). */
export interface SubscriptionCreationsTable {
  id: string;
  store_id: string;
  livemode: number;
  retry_key: string;
  subscription_id: string;
  charge_id: string;
  txid: string;
  loc_id: number | null;
  loc_location: string | null;
  id_rec: string | null;
  completed_at: string | null;
  claimed_until: string | null;
  created_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    subscription_creations: SubscriptionCreationsTable;
  }
}

/** How long one try holds its creation: longer than its PSP calls may take, short enough to retry after a crash. */
const LEASE_MS = 2 * 60 * 1000;

/** The ids a creation starts with; a retry that resumes gets the first try's instead. */
export interface FreshIds {
  subscriptionId: string;
  chargeId: string;
  txid: string;
}

/**
 * Starts or resumes the creation with this retry key, leased to this try. An unfinished creation
 * younger than `resumeWithinMs` (the first charge's lifetime: after it, its cob and rec are of no
 * use to the buyer) is resumed with its ids and what the PSP already holds; a finished or stale one,
 * or none, starts afresh with `fresh`. 409 while another try of the same creation holds it.
 */
export async function beginCreation(
  db: Kysely<Database>,
  scope: { storeId: string; livemode: boolean },
  retryKey: string,
  fresh: FreshIds,
  resumeWithinMs: number,
): Promise<SubscriptionCreationsTable> {
  const now = nowIso();
  const start = {
    subscription_id: fresh.subscriptionId,
    charge_id: fresh.chargeId,
    txid: fresh.txid,
    loc_id: null,
    loc_location: null,
    id_rec: null,
    completed_at: null,
    claimed_until: isoAfter(LEASE_MS),
    created_at: now,
  };
  const inserted = await db
    .insertInto('subscription_creations')
    .values({
      id: prefixedId('scr'),
      store_id: scope.storeId,
      livemode: fromBool(scope.livemode),
      retry_key: retryKey,
      ...start,
    })
    .onConflict((oc) => oc.columns(['store_id', 'livemode', 'retry_key']).doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return inserted;
  const held = await db
    .selectFrom('subscription_creations')
    .selectAll()
    .where('store_id', '=', scope.storeId)
    .where('livemode', '=', fromBool(scope.livemode))
    .where('retry_key', '=', retryKey)
    .executeTakeFirstOrThrow();
  const resumable = held.completed_at === null && held.created_at > isoAfter(-resumeWithinMs);
  const claimed = await db
    .updateTable('subscription_creations')
    .set(resumable ? { claimed_until: isoAfter(LEASE_MS) } : start)
    .where('id', '=', held.id)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .returningAll()
    .executeTakeFirst();
  if (!claimed) {
    throw new ApiError(
      409,
      'creation_in_progress',
      'This subscription is being created by an earlier request that has not finished; retry in a moment.',
    );
  }
  return claimed;
}

/** What the PSP answered at one step: its location (`POST /locrec`) or its rec (`POST /rec`). */
export type CreationStep = Partial<Pick<SubscriptionCreationsTable, 'loc_id' | 'loc_location' | 'id_rec'>>;

/** Records a step the PSP answered, before the next call: a retry resumes from there. */
export async function saveCreationStep(
  db: Kysely<Database>,
  row: SubscriptionCreationsTable,
  step: CreationStep,
): Promise<void> {
  await db.updateTable('subscription_creations').set(step).where('id', '=', row.id).execute();
}

/** The subscription is written (in the caller's transaction): the creation is done. */
export async function completeCreation(
  trx: Kysely<Database>,
  row: SubscriptionCreationsTable,
): Promise<void> {
  await trx
    .updateTable('subscription_creations')
    .set({ completed_at: nowIso(), claimed_until: null })
    .where('id', '=', row.id)
    .execute();
}

/** A try failed: the next one may resume at once. */
export async function releaseCreation(db: Kysely<Database>, row: SubscriptionCreationsTable): Promise<void> {
  await db
    .updateTable('subscription_creations')
    .set({ claimed_until: null })
    .where('id', '=', row.id)
    .where('completed_at', 'is', null)
    .execute();
}
