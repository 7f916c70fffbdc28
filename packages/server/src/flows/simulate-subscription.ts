import type { Kysely } from 'kysely';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { invalidRequest } from '../platform/http/api-error.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { simulatedPixProvider } from '../domain/payments/simulated/simulated-pix-provider.js';
import { storeToday } from '../domain/kernel/store-timezone.js';
import { sendCycleCharge } from './cycle-charges.js';
import { endAuthorisation, failCycleAttempt, payCycle } from './subscription-outcomes.js';
import type { SubscriptionsTable } from '../domain/subscriptions/subscription-object.js';

/*
 * Test mode's stand-ins for the buyer's bank, one cycle's outcome at a time. Each goes through the
 * outcome functions a live PSP's confirmed answer goes through. Callers refuse live subscriptions.
 */

function billable(row: SubscriptionsTable, operation: string): void {
  if (row.status !== 'active' && row.status !== 'past_due') {
    throw invalidRequest(`${operation} needs an active or past_due subscription; this one is ${row.status}.`);
  }
}

/** The next cycle's charge (sent now if the scheduler has not yet) is paid: a sale, the period advances. */
export async function simulateRenewal(
  db: Kysely<Database>,
  payments: PaymentProviders,
  row: SubscriptionsTable,
  mail: Pick<Config, 'smtp'>,
): Promise<SubscriptionsTable> {
  billable(row, 'simulate_renewal');
  const cycle = await sendCycleCharge(db, payments, row);
  const [received] = simulatedPixProvider.parseReceivedPix(
    simulatedPixProvider.receivedPixCallback(cycle.txid, cycle.amount_cents),
  );
  return (await payCycle(db, cycle, received!, mail)).subscription;
}

/** An attempt at the next cycle's charge fails: past_due with retries left, else canceled. */
export async function simulateFailure(
  db: Kysely<Database>,
  payments: PaymentProviders,
  row: SubscriptionsTable,
): Promise<SubscriptionsTable> {
  billable(row, 'simulate_failure');
  const cycle = await sendCycleCharge(db, payments, row);
  return failCycleAttempt(db, cycle, await storeToday(db, row.store_id));
}

/** The buyer revokes the authorisation at their bank. */
export function simulateBuyerCancel(
  db: Kysely<Database>,
  row: SubscriptionsTable,
): Promise<SubscriptionsTable> {
  billable(row, 'simulate_buyer_cancel');
  return endAuthorisation(db, row, 'buyer');
}
