import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { prefixedId } from '../platform/values/ids.js';
import { nowIso } from '../platform/values/time.js';
import { ApiError } from '../platform/http/api-error.js';
import type { Customer } from '../domain/kernel/customer.js';
import { pixReceiverFor } from '../domain/pix/pix-settings.js';
import { findStore } from '../domain/stores/stores.js';
import type { StoresTable } from '../domain/stores/stores.js';
import { cycleTxid } from '../domain/subscriptions/cycle-txid.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import type { RecurringPixProvider } from '../domain/payments/recurring-provider.js';
import type {
  SubscriptionCyclesTable,
  SubscriptionsTable,
} from '../domain/subscriptions/subscription-object.js';

/** What became of each subscription's next cycle charge. */
export interface CycleChargeOutcome {
  subscription: SubscriptionsTable;
  /** The cycle's charge as stored now; null when the PSP call failed (`error`). */
  cycle: SubscriptionCyclesTable | null;
  /** Whether this call sent it to the PSP (and no concurrent caller did). */
  sent: boolean;
  error: ApiError | null;
}

/** PSP calls in flight at once for one batch: enough to hide latency, polite to the PSP. */
const PSP_CONCURRENCY = 8;

/**
 * Makes sure the next cycle of each active or past-due subscription has its charge at the PSP
 * (`PUT /cobr/{txid}`), due on the current period's end. The cycles' rows come first (`sending`,
 * one per cycle by a unique index, inserted together), then the PSP calls with txids derived from
 * the subscription and the cycle, then `scheduled` (together, conditional): a crash in between
 * leaves `sending` rows whose next attempt PUTs the very same cobr, so a cycle is billed once however
 * many schedulers run and however often they restart. A PSP failure is answered per subscription.
 */
export async function sendCycleCharges(
  db: Kysely<Database>,
  payments: PaymentProviders,
  subscriptions: SubscriptionsTable[],
): Promise<CycleChargeOutcome[]> {
  if (subscriptions.length === 0) return [];
  const now = nowIso();
  const providers = new Map<string, RecurringPixProvider>();
  const stores = new Map<string, StoresTable>();
  const prepared = [];
  const outcomes: CycleChargeOutcome[] = [];
  for (const subscription of subscriptions) {
    const scope = { storeId: subscription.store_id, livemode: subscription.livemode === 1 };
    const scopeKey = `${scope.storeId}:${scope.livemode}`;
    if (!providers.has(scopeKey)) {
      try {
        const provider = await payments.recurring(scope);
        provider.checkCanBill();
        providers.set(scopeKey, provider);
      } catch (error) {
        // A live store whose PSP settings were removed, or lack the receiving account: its
        // subscriptions wait (nothing written, nothing sent), the others go on.
        if (!(error instanceof ApiError)) throw error;
        outcomes.push({ subscription, cycle: null, sent: false, error });
        continue;
      }
    }
    if (!stores.has(scope.storeId)) {
      const store = await findStore(db, scope.storeId);
      if (!store) throw new Error(`store ${scope.storeId} of subscription ${subscription.id} is missing`);
      stores.set(scope.storeId, store);
    }
    const provider = providers.get(scopeKey)!;
    const number = subscription.cycle + 1;
    prepared.push({
      subscription,
      provider,
      store: stores.get(scope.storeId)!,
      row: {
        id: prefixedId('cyc'),
        store_id: subscription.store_id,
        livemode: subscription.livemode,
        subscription_id: subscription.id,
        cycle: number,
        txid: cycleTxid(subscription.id, number),
        due_date: subscription.next_charge_date!,
        amount_cents: subscription.amount_cents,
        status: 'sending',
        failed_attempts: 0,
        retries_requested: 0,
        sale_id: null,
        next_check_at: null,
        created_at: now,
        paid_at: null,
      } satisfies SubscriptionCyclesTable,
    });
  }
  if (prepared.length === 0) return outcomes;
  await db
    .insertInto('subscription_cycles')
    .values(prepared.map((p) => p.row))
    .onConflict((oc) => oc.columns(['subscription_id', 'cycle']).doNothing())
    .execute();
  const stored = await db
    .selectFrom('subscription_cycles')
    .selectAll()
    .where(
      'subscription_id',
      'in',
      subscriptions.map((s) => s.id),
    )
    .execute();
  const byKey = new Map(stored.map((row) => [`${row.subscription_id}:${row.cycle}`, row]));

  const toSend = [];
  for (const p of prepared) {
    const cycle = byKey.get(`${p.subscription.id}:${p.row.cycle}`)!;
    if (cycle.status === 'sending') toSend.push({ ...p, cycle });
    else outcomes.push({ subscription: p.subscription, cycle, sent: false, error: null });
  }
  const accepted: typeof toSend = [];
  for (let i = 0; i < toSend.length; i += PSP_CONCURRENCY) {
    await Promise.all(
      toSend.slice(i, i + PSP_CONCURRENCY).map(async (p) => {
        try {
          await p.provider.scheduleCycleCharge({
            txid: p.cycle.txid,
            idRec: p.subscription.id_rec!,
            dueDate: p.cycle.due_date,
            amountCents: p.cycle.amount_cents,
            customer: JSON.parse(p.subscription.customer) as Customer,
            receiver: pixReceiverFor(p.store, p.subscription.livemode === 1),
          });
          accepted.push(p);
        } catch (error) {
          if (!(error instanceof ApiError)) throw error;
          outcomes.push({ subscription: p.subscription, cycle: null, sent: false, error });
        }
      }),
    );
  }
  if (accepted.length === 0) return outcomes;
  // Live cycle charges are read at the PSP by the reconciler from now on; test ones wait for a simulation.
  const scheduled = await db
    .updateTable('subscription_cycles')
    .set((eb) => ({
      status: 'scheduled',
      next_check_at: eb.case().when('livemode', '=', 1).then(now).else(null).end(),
    }))
    .where(
      'id',
      'in',
      accepted.map((p) => p.cycle.id),
    )
    .where('status', '=', 'sending')
    .returning('id')
    .execute();
  const movedHere = new Set(scheduled.map((row) => row.id));
  for (const p of accepted) {
    outcomes.push({
      subscription: p.subscription,
      cycle: { ...p.cycle, status: 'scheduled', next_check_at: p.subscription.livemode === 1 ? now : null },
      sent: movedHere.has(p.cycle.id),
      error: null,
    });
  }
  return outcomes;
}

/** One subscription's next cycle charge (test mode's simulations): a PSP failure is thrown. */
export async function sendCycleCharge(
  db: Kysely<Database>,
  payments: PaymentProviders,
  subscription: SubscriptionsTable,
): Promise<SubscriptionCyclesTable> {
  const [outcome] = await sendCycleCharges(db, payments, [subscription]);
  if (outcome!.error) throw outcome!.error;
  return outcome!.cycle!;
}
