import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { prefixedId } from '../common/ids.js';
import { nowIso } from '../common/time.js';
import type { Customer } from '../pix/customer.js';
import { pixReceiverFor } from '../pix/pix-settings.js';
import { findStore } from '../stores/stores.js';
import { recurringProviderFor } from './recurring-providers.js';
import type { SubscriptionCyclesTable, SubscriptionsTable } from './subscription-object.js';
import { findCycle, insertCycle, moveCycle } from './subscriptions-repository.js';

/**
 * Makes sure the next cycle of an active or past-due subscription has its charge at the PSP
 * (`PUT /cobr/{txid}`), due on the current period's end, and returns it with whether this call sent
 * it. The cycle's row comes first (`sending`, one per cycle by a unique index), then the PSP call
 * with a txid derived from the subscription and the cycle, then `scheduled`: a crash in between
 * leaves a `sending` row whose next attempt PUTs the very same cobr, so a cycle is billed once
 * however many schedulers run and however often they restart.
 */
export async function sendCycleCharge(
  db: Kysely<Database>,
  subscription: SubscriptionsTable,
): Promise<{ cycle: SubscriptionCyclesTable; sent: boolean }> {
  const scope = { storeId: subscription.store_id, livemode: subscription.livemode === 1 };
  const number = subscription.cycle + 1;
  const provider = await recurringProviderFor(db, scope);
  await insertCycle(db, {
    id: prefixedId('cyc'),
    store_id: subscription.store_id,
    livemode: subscription.livemode,
    subscription_id: subscription.id,
    cycle: number,
    txid: provider.cycleTxid(subscription.id, number),
    due_date: subscription.next_charge_date!,
    amount_cents: subscription.amount_cents,
    status: 'sending',
    failed_attempts: 0,
    retries_requested: 0,
    sale_id: null,
    next_check_at: null,
    created_at: nowIso(),
    paid_at: null,
  });
  const cycle = (await findCycle(db, subscription.id, number))!;
  if (cycle.status !== 'sending') return { cycle, sent: false };
  const store = await findStore(db, subscription.store_id);
  if (!store) throw new Error(`store ${subscription.store_id} of subscription ${subscription.id} is missing`);
  await provider.scheduleCycleCharge({
    txid: cycle.txid,
    idRec: subscription.id_rec!,
    dueDate: cycle.due_date,
    amountCents: cycle.amount_cents,
    customer: JSON.parse(subscription.customer) as Customer,
    receiver: pixReceiverFor(store, scope.livemode),
  });
  // Live cycle charges are read at the PSP by the reconciler from now on; test ones wait for a simulation.
  const scheduled = { status: 'scheduled' as const, next_check_at: scope.livemode ? nowIso() : null };
  const sent = await moveCycle(db, cycle, ['sending'], scheduled);
  return { cycle: { ...cycle, ...scheduled }, sent };
}
