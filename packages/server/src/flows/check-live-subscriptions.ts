import type { Kysely } from 'kysely';
import { planConstants } from '../platform/db/plan-constant.js';
import type { Config } from '../platform/config/config.js';
import { fromBool } from '../platform/db/schema.js';
import type { Database } from '../platform/db/schema.js';
import { nowIso } from '../platform/values/time.js';
import { ApiError } from '../platform/http/api-error.js';
import { claimDue } from '../platform/jobs/claim-due.js';
import type { DueQueue } from '../platform/jobs/claim-due.js';
import { nextAuthorisationCheckAt, nextCycleCheckAt } from '../domain/pix/live/reconcile-schedule.js';
import type { DueCheck } from './reconcile-live-pix.js';
import type { JobLog } from '../platform/jobs/worker.js';
import { storeToday } from '../domain/kernel/store-timezone.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import type {
  SubscriptionCyclesTable,
  SubscriptionsTable,
} from '../domain/subscriptions/subscription-object.js';
import {
  activateAuthorised,
  endAuthorisation,
  expireAuthorisation,
  failCycleAttempt,
  payCycle,
} from './subscription-outcomes.js';

const LIVE_OPEN: SubscriptionsTable['status'][] = ['pending', 'active', 'past_due'];
/** How soon a pending authorisation is read again when no callback comes. */
const PENDING_CHECK_MS = 5 * 60 * 1000;

/** Live cycle charges, due for a `GET /cobr` at `next_check_at`. */
const CYCLE_CHECKS: DueQueue = {
  table: 'subscription_cycles',
  key: 'id',
  dueAt: 'next_check_at',
  token: null,
};
/** Live authorisations, due for a `GET /rec` at `next_check_at`. */
const AUTHORISATION_CHECKS: DueQueue = {
  table: 'subscriptions',
  key: 'id',
  dueAt: 'next_check_at',
  token: null,
};

/**
 * A `/rec` or `/cobr` callback makes the live subscriptions and cycle charges it names due for a read
 * at the PSP now, in the callback's transaction (passed to the callback routes in app.ts).
 */
export const markRecurringDue = async (
  trx: Kysely<Database>,
  storeId: string,
  { idRecs, txids }: { idRecs: string[]; txids: string[] },
): Promise<number> => {
  const now = nowIso();
  let due = 0n;
  if (idRecs.length > 0) {
    const result = await trx
      .updateTable('subscriptions')
      .set({ next_check_at: now })
      .where('store_id', '=', storeId)
      .where('livemode', '=', fromBool(true))
      .where('id_rec', 'in', idRecs)
      .where('status', 'in', planConstants(LIVE_OPEN))
      .executeTakeFirst();
    due += result.numUpdatedRows;
  }
  if (txids.length > 0) {
    const result = await trx
      .updateTable('subscription_cycles')
      .set({ next_check_at: now })
      .where('store_id', '=', storeId)
      .where('livemode', '=', fromBool(true))
      .where('txid', 'in', txids)
      .where('status', '=', 'scheduled')
      .executeTakeFirst();
    due += result.numUpdatedRows;
  }
  return Number(due);
};

/**
 * The reconciler's Pix Automático reads: each due live cycle charge (`GET /cobr/{txid}`: paid → its
 * sale; an attempt failed → counted once) and each due live authorisation (`GET /rec/{idRec}`:
 * approved with the first charge paid → active; refused or ended by the buyer or a PSP → canceled;
 * expired never approved → expired). What the PSP answers is the only thing that changes a row.
 */
export function recurringChecks(
  db: Kysely<Database>,
  payments: PaymentProviders,
  mail: Pick<Config, 'smtp'>,
  log: JobLog,
): DueCheck[] {
  const failed = (context: object, err: unknown) =>
    err instanceof ApiError
      ? log.info({ ...context, code: err.code, message: err.message }, 'pix automático check failed')
      : log.error({ ...context, err }, 'pix automático check failed');

  async function checkCycle(cycle: SubscriptionCyclesTable): Promise<void> {
    const context = { cycle_id: cycle.id, store_id: cycle.store_id, txid: cycle.txid };
    if (cycle.status !== 'scheduled') {
      await db
        .updateTable('subscription_cycles')
        .set({ next_check_at: null })
        .where('id', '=', cycle.id)
        .execute();
      return;
    }
    try {
      const provider = await payments.recurring({ storeId: cycle.store_id, livemode: true });
      const state = await provider.getCycleCharge(cycle.txid, cycle.amount_cents);
      if (state.payment) {
        await payCycle(db, cycle, state.payment, mail);
        log.info(
          { ...context, end_to_end_id: state.payment.endToEndId },
          'cycle payment confirmed by the PSP',
        );
        return;
      }
      // One failure per attempt: attempt n+1 follows the n-th retry asked for.
      if (state.attemptFailed && cycle.failed_attempts === cycle.retries_requested) {
        await failCycleAttempt(db, cycle, await storeToday(db, cycle.store_id));
        log.info({ ...context, psp_status: state.status }, 'cycle attempt failed at the PSP');
      }
    } catch (err) {
      failed(context, err);
    }
    await db
      .updateTable('subscription_cycles')
      .set({ next_check_at: nextCycleCheckAt(cycle.created_at, cycle.due_date, new Date()) })
      .where('id', '=', cycle.id)
      .where('status', '=', 'scheduled')
      // A callback during the read made it due now: that stands.
      .where('next_check_at', '=', cycle.next_check_at)
      .execute();
  }

  async function checkAuthorisation(row: SubscriptionsTable): Promise<void> {
    const context = { subscription_id: row.id, store_id: row.store_id, id_rec: row.id_rec };
    if (!LIVE_OPEN.includes(row.status) || row.id_rec === null) {
      await db.updateTable('subscriptions').set({ next_check_at: null }).where('id', '=', row.id).execute();
      return;
    }
    try {
      const provider = await payments.recurring({ storeId: row.store_id, livemode: true });
      const state = await provider.getAuthorisation(row.id_rec);
      if ((state.status === 'CANCELADA' || state.status === 'REJEITADA') && state.endedBy !== null) {
        await endAuthorisation(db, row, state.endedBy);
        log.info(
          { ...context, ended_by: state.endedBy, psp_status: state.status },
          'authorisation ended at the PSP: subscription canceled',
        );
        return;
      }
      // Paying the first charge makes the sale; only the approved rec makes the subscription active.
      if (state.status === 'APROVADA' && row.status === 'pending') {
        if (await activateAuthorised(db, row)) {
          log.info(context, 'authorisation approved at the PSP: subscription active');
          return;
        }
      }
      if (state.status === 'EXPIRADA' && row.status === 'pending' && (await expireAuthorisation(db, row))) {
        log.info(context, 'authorisation expired at the PSP: subscription expired');
        return;
      }
    } catch (err) {
      failed(context, err);
    }
    await db
      .updateTable('subscriptions')
      .set({
        // A pending one waits on the payer's answer, given with the payment: looked at again soon.
        next_check_at:
          row.status === 'pending'
            ? new Date(Date.now() + PENDING_CHECK_MS).toISOString()
            : nextAuthorisationCheckAt(new Date()),
      })
      .where('id', '=', row.id)
      .where('status', 'in', planConstants(LIVE_OPEN))
      // A callback during the read (the payer answering right after paying) made it due now: that stands.
      .where('next_check_at', '=', row.next_check_at)
      .execute();
  }

  return [
    {
      name: 'pix automático cycle charges',
      claim: async (db, limit, leaseMs) =>
        (await claimDue<SubscriptionCyclesTable>(db, CYCLE_CHECKS, limit, leaseMs)).map(
          (cycle) => () => checkCycle(cycle),
        ),
    },
    {
      name: 'pix automático authorisations',
      claim: async (db, limit, leaseMs) =>
        (await claimDue<SubscriptionsTable>(db, AUTHORISATION_CHECKS, limit, leaseMs)).map(
          (row) => () => checkAuthorisation(row),
        ),
    },
  ];
}
