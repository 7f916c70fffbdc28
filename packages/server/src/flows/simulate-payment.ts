import type { Kysely } from 'kysely';
import type { DeliveryMail } from '../domain/accounts/test-mail-policy.js';
import type { Database } from '../platform/db/schema.js';
import { invalidRequest } from '../platform/http/api-error.js';
import { nowIso } from '../platform/values/time.js';
import { expireCharge } from '../domain/pix/expiry-sweeper.js';
import { payCharge } from './pay-charge.js';
import { effectiveStatus, toPixCharge } from '../domain/pix/pix-charge-object.js';
import type { PixCharge, PixChargesTable } from '../domain/pix/pix-charge-object.js';
import { findCharge, markExpiredEarly } from '../domain/pix/pix-charges-repository.js';
import { simulatedPixProvider } from '../domain/payments/simulated/simulated-pix-provider.js';

/*
 * Test mode's stand-ins for the payer and the clock, shared by the API and the purchase page. Callers
 * refuse live charges before calling.
 */

/** Pays a test charge through the provider's callback shape, the path a live payment notice takes. */
export async function simulatePayment(
  db: Kysely<Database>,
  row: PixChargesTable,
  mail: DeliveryMail,
): Promise<PixCharge> {
  const callback = simulatedPixProvider.receivedPixCallback(row.txid, row.amount_cents);
  const [received] = simulatedPixProvider.parseReceivedPix(callback);
  return (await payCharge(db, row, received!, mail)).charge;
}

/** A pending test charge expires at once, with its `pix.expired` event, as if its time had run out. */
export async function simulateExpiration(db: Kysely<Database>, row: PixChargesTable): Promise<PixCharge> {
  const now = nowIso();
  if (await expireCharge(db, row, now, markExpiredEarly)) {
    return toPixCharge({ ...row, status: 'expired', expires_at: now }, now);
  }
  const scope = { storeId: row.store_id, livemode: row.livemode === 1 };
  const status = effectiveStatus((await findCharge(db, scope, row.id)) ?? row, now);
  throw invalidRequest(
    status === 'paid' ? 'This Pix charge is already paid.' : 'This Pix charge has already expired.',
  );
}
