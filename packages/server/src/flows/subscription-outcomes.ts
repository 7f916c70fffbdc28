import type { Kysely } from 'kysely';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import type { StorefrontEvent } from '../platform/outbox/outbox.js';
import { invalidRequest } from '../platform/http/api-error.js';
import type { ReceivedPix } from '../domain/payments/pix-provider.js';
import { approveSaleRecorded } from './approve-sale.js';
import type { Sale } from '../domain/sales/sale-object.js';
import { newUuid } from '../platform/values/ids.js';
import { nowIso } from '../platform/values/time.js';
import { addDays, daysBetween, localDate } from '../platform/values/local-date.js';
import { storeTimezone } from '../domain/kernel/store-timezone.js';
import { findCharge } from '../domain/pix/pix-charges-repository.js';
import { periodBound } from '../domain/subscriptions/periods.js';
import { nextAuthorisationCheckAt } from '../domain/pix/live/reconcile-schedule.js';
import { toSubscription } from '../domain/subscriptions/subscription-object.js';
import type {
  CancelReason,
  SubscriptionCyclesTable,
  SubscriptionStatus,
  SubscriptionsTable,
} from '../domain/subscriptions/subscription-object.js';
import {
  findSubscriptionStartedBy,
  moveCycle,
  moveSubscription,
} from '../domain/subscriptions/subscriptions-repository.js';

/*
 * What happens to a subscription when its PSP (or, in test mode, a simulate operation) tells an
 * outcome. Each outcome is one transaction holding the change and its events, and each is a
 * conditional update, so a callback, the reconciler and a second node racing on one outcome apply it
 * once.
 */

/** The charge is sent this many days before a cycle's due date (Pix Automático allows 2 to 10). */
export const CHARGE_DAYS_AHEAD = 5;
/** With `3_in_7_days`: retries after the first failed attempt, all within this many days of the due date. */
export const MAX_RETRIES = 3;
export const RETRY_WINDOW_DAYS = 7;

const BILLABLE: readonly SubscriptionStatus[] = ['active', 'past_due'];

function scopeOf(row: { store_id: string; livemode: number }) {
  return { storeId: row.store_id, livemode: row.livemode === 1 };
}

function recordSubscriptionEvent(
  trx: Kysely<Database>,
  row: SubscriptionsTable,
  type:
    | 'subscription.created'
    | 'subscription.activated'
    | 'subscription.renewed'
    | 'subscription.past_due'
    | 'subscription.canceled',
  after?: StorefrontEvent,
): Promise<StorefrontEvent> {
  return recordEvent(trx, {
    ...scopeOf(row),
    type,
    object: toSubscription(row),
    ...(after !== undefined && { after }),
  });
}

/** The columns of a subscription that has paid `cycle` cycles counted from `anchor`. */
function paidThrough(row: SubscriptionsTable, anchor: string, cycle: number): Partial<SubscriptionsTable> {
  const end = periodBound(anchor, row.recorrencia, cycle);
  return {
    status: 'active',
    anchor_date: anchor,
    cycle,
    current_period_start: periodBound(anchor, row.recorrencia, cycle - 1),
    current_period_end: end,
    next_charge_date: end,
    next_action_date: addDays(end, -CHARGE_DAYS_AHEAD),
  };
}

/** What a sale learns from the subscription its charge pays. */
export interface SaleFromSubscription {
  subscription_id: string | null;
  cycle: number | null;
}

/**
 * Called by the one pay path of every charge (`payCharge`), in its transaction, before the sale is
 * approved: the payment alone makes the sale (its cycle 1). In test mode the simulated payment also
 * authorises (Jornada 3: one QR pays and authorises), so the subscription becomes active at cycle 1
 * from the payment's day (store timezone). Live, the payer may pay and still refuse the recurrence:
 * the subscription stays pending until the PSP shows the `rec` approved, and is made due for that
 * read (`GET /rec/{idRec}`, `activateAuthorised`) now. A charge paid after its subscription expired
 * (a payment the PSP confirms was made in time) still counts; one that was canceled stays canceled,
 * its sale still naming it. Returns the sale's subscription columns and a function recording
 * `subscription.activated` after `sale.approved`.
 */
export async function activateSubscriptionOfCharge(
  trx: Kysely<Database>,
  charge: { id: string; store_id: string; metadata: string | null },
  paidAt: string,
): Promise<{ sale: SaleFromSubscription; announce: (after: StorefrontEvent) => Promise<void> }> {
  const row = await findSubscriptionStartedBy(trx, charge);
  if (!row) return { sale: { subscription_id: null, cycle: null }, announce: async () => {} };
  const sale = { subscription_id: row.id, cycle: 1 };
  if (row.livemode === 1) {
    await moveSubscription(trx, row, ['pending', 'expired'], { status: 'pending', next_check_at: nowIso() });
    return { sale, announce: async () => {} };
  }
  const activated = await moveSubscription(
    trx,
    row,
    ['pending', 'expired'],
    paidThrough(row, localDate(paidAt, await storeTimezone(trx, row.store_id)), 1),
  );
  return {
    sale,
    announce: async (after) => {
      if (activated) await recordSubscriptionEvent(trx, activated, 'subscription.activated', after);
    },
  };
}

/**
 * The PSP shows a pending live subscription's `rec` approved: once its first charge is paid too, it
 * becomes active at cycle 1 from the payment's day (store timezone), with `subscription.activated`.
 * Returns the activated row, or null while the first charge is unpaid (or it changed meanwhile).
 */
export function activateAuthorised(
  db: Kysely<Database>,
  row: SubscriptionsTable,
): Promise<SubscriptionsTable | null> {
  return db.transaction().execute(async (trx) => {
    const charge = await findCharge(trx, scopeOf(row), row.first_charge_id);
    if (charge?.status !== 'paid' || !charge.paid_at) return null;
    const timezone = await storeTimezone(trx, row.store_id);
    const activated = await moveSubscription(trx, row, ['pending'], {
      ...paidThrough(row, localDate(charge.paid_at, timezone), 1),
      next_check_at: nextAuthorisationCheckAt(new Date()),
    });
    if (activated) await recordSubscriptionEvent(trx, activated, 'subscription.activated');
    return activated;
  });
}

/** The PSP shows a pending live subscription's `rec` expired, never approved: → `expired`. */
export async function expireAuthorisation(db: Kysely<Database>, row: SubscriptionsTable): Promise<boolean> {
  return (await moveSubscription(db, row, ['pending'], { status: 'expired', next_check_at: null })) !== null;
}

/**
 * A cycle's charge was paid (cobr `CONCLUIDA`, or test mode's simulate_renewal): its sale (cycle n,
 * `sale.approved`, the renewal receipt), the period advances, `subscription.renewed`. Paying a cycle
 * twice is refused (400). Money received for a subscription that ended meanwhile still makes its sale
 * (naming the subscription and cycle), and the subscription stays ended.
 */
export async function payCycle(
  db: Kysely<Database>,
  cycle: SubscriptionCyclesTable,
  received: ReceivedPix,
  mail: Pick<Config, 'smtp'>,
): Promise<{ subscription: SubscriptionsTable; sale: Sale }> {
  return db.transaction().execute(async (trx) => {
    const saleId = newUuid();
    // Any state but paid: a charge the PSP settled after we gave up on it (or canceled it) is still money in.
    const paid = await moveCycle(trx, cycle, ['sending', 'scheduled', 'failed', 'canceled'], {
      status: 'paid',
      paid_at: received.paidAt,
      sale_id: saleId,
      next_check_at: null,
    });
    if (!paid) throw invalidRequest(`Cycle ${cycle.cycle} of this subscription is already paid.`);
    const row = await currentSubscription(trx, cycle.subscription_id);
    const { sale, event } = await approveSaleRecorded(
      trx,
      {
        id: saleId,
        store_id: cycle.store_id,
        livemode: cycle.livemode,
        amount_cents: cycle.amount_cents,
        payment_method: 'pix',
        pix_charge_id: null,
        pix_end_to_end_id: received.endToEndId,
        product_id: row.product_id,
        customer: row.customer,
        items: null,
        coupon: null,
        subscription_id: row.id,
        cycle: cycle.cycle,
        created_at: nowIso(),
      },
      mail,
    );
    const renewed = await moveSubscription(
      trx,
      row,
      BILLABLE,
      paidThrough(row, row.anchor_date!, cycle.cycle),
      cycle.cycle - 1,
    );
    if (renewed) await recordSubscriptionEvent(trx, renewed, 'subscription.renewed', event);
    return { subscription: renewed ?? row, sale };
  });
}

/**
 * An attempt at a cycle's charge failed. With `3_in_7_days` and retries left (at most 3, the next one
 * tomorrow and within 7 days of the due date) the subscription is `past_due` (`subscription.past_due`
 * when it enters it) and the scheduler asks for a retry tomorrow; otherwise the cycle has failed and
 * the subscription is `canceled` (`payment_failed`). `today` is the store's day of the failure.
 */
export async function failCycleAttempt(
  db: Kysely<Database>,
  cycle: SubscriptionCyclesTable,
  today: string,
): Promise<SubscriptionsTable> {
  return db.transaction().execute(async (trx) => {
    const row = await currentSubscription(trx, cycle.subscription_id);
    if (!BILLABLE.includes(row.status)) {
      throw invalidRequest(`This subscription is ${row.status}: it has no cycle to fail.`);
    }
    const failedAttempts = cycle.failed_attempts + 1;
    const retry = addDays(today, 1);
    const retriesLeft =
      row.retry_policy === '3_in_7_days' &&
      failedAttempts <= MAX_RETRIES &&
      daysBetween(cycle.due_date, retry) <= RETRY_WINDOW_DAYS;
    const counted = await moveCycle(
      trx,
      cycle,
      ['scheduled'],
      { failed_attempts: failedAttempts, ...(retriesLeft ? {} : { status: 'failed', next_check_at: null }) },
      { failedAttempts: cycle.failed_attempts },
    );
    if (!counted)
      throw invalidRequest(`Cycle ${cycle.cycle} of this subscription has no attempt in progress.`);
    if (!retriesLeft) return endSubscription(trx, row, BILLABLE, 'payment_failed');
    const pastDue = await moveSubscription(trx, row, BILLABLE, {
      status: 'past_due',
      next_action_date: retry,
    });
    if (!pastDue) throw invalidRequest('This subscription changed meanwhile; try again.');
    if (row.status === 'active') await recordSubscriptionEvent(trx, pastDue, 'subscription.past_due');
    return pastDue;
  });
}

/**
 * The authorisation ended at the PSP: the buyer revoked it at their bank, or a PSP canceled or
 * rejected it (`rec` `CANCELADA`/`REJEITADA`) → `canceled` with `subscription.canceled`. Ending an
 * ended subscription is 400.
 */
export function endAuthorisation(
  db: Kysely<Database>,
  row: SubscriptionsTable,
  reason: Extract<CancelReason, 'buyer' | 'psp'>,
): Promise<SubscriptionsTable> {
  return db.transaction().execute((trx) => endSubscription(trx, row, ['pending', ...BILLABLE], reason));
}

/**
 * → `canceled` for `reason`, from one of `from`, with its open cycle charge and `subscription.canceled`,
 * in the caller's transaction; 400 when it had already ended.
 */
export async function endSubscription(
  trx: Kysely<Database>,
  row: SubscriptionsTable,
  from: readonly SubscriptionStatus[],
  reason: CancelReason,
): Promise<SubscriptionsTable> {
  const canceled = await moveSubscription(trx, row, from, {
    status: 'canceled',
    cancel_reason: reason,
    canceled_at: nowIso(),
    next_charge_date: null,
    next_action_date: null,
    next_check_at: null,
  });
  if (!canceled) {
    const current = await currentSubscription(trx, row.id);
    throw invalidRequest(`This subscription is already ${current.status}.`);
  }
  await trx
    .updateTable('subscription_cycles')
    .set({ status: 'canceled', next_check_at: null })
    .where('subscription_id', '=', row.id)
    .where('status', 'in', ['sending', 'scheduled'])
    .execute();
  await recordSubscriptionEvent(trx, canceled, 'subscription.canceled');
  return canceled;
}

/** Records `subscription.created` for a new subscription, after its first charge's `pix.created`. */
export function announceCreated(
  trx: Kysely<Database>,
  row: SubscriptionsTable,
  after: StorefrontEvent,
): Promise<StorefrontEvent> {
  return recordSubscriptionEvent(trx, row, 'subscription.created', after);
}

async function currentSubscription(trx: Kysely<Database>, id: string): Promise<SubscriptionsTable> {
  const row = await trx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw new Error(`subscription ${id} of a stored cycle is missing`);
  return row;
}
