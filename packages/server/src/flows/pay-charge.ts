import type { Kysely } from 'kysely';
import type { DeliveryMail } from '../domain/accounts/test-mail-policy.js';
import type { Database } from '../platform/db/schema.js';
import { countSkippedEmail } from './queue-delivery-email.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import { invalidRequest } from '../platform/http/api-error.js';
import { approveSaleRecorded } from './approve-sale.js';
import { activateSubscriptionOfCharge } from './subscription-outcomes.js';
import type { Sale } from '../domain/sales/sale-object.js';
import { completeOrderOfCharge } from './complete-order.js';
import { newUuid } from '../platform/values/ids.js';
import { countPixCharge } from '../platform/metrics/metrics.js';
import { nowIso } from '../platform/values/time.js';
import { chargeChanged } from '../domain/pix/charge-signals.js';
import { effectiveStatus, toPixCharge } from '../domain/pix/pix-charge-object.js';
import type { PixCharge, PixChargesTable } from '../domain/pix/pix-charge-object.js';
import { findCharge, markPaid } from '../domain/pix/pix-charges-repository.js';
import type { ReceivedPix } from '../domain/payments/pix-provider.js';

/**
 * Applies a received Pix to its charge, in ONE transaction: the charge becomes paid, its sale is
 * created with its delivery e-mail queued, and `pix.paid` then `sale.approved` are recorded. A
 * charge that is already paid or has expired (or canceled) is refused with 400 and nothing is
 * written. The received Pix comes from the simulated provider for test keys, and for live keys from
 * the PSP's own answer to `GET /cob/{txid}` (the reconciler, a callback, a cancellation that found
 * the cob paid): every way a charge becomes paid goes through here. A charge of a purchase-page
 * order completes the order in the same transaction: the sale gets its items, coupon and `recovered`, the
 * coupon its redemption; every sale carries its charge's `tracking`; a subscription's first charge activates it (the sale is its cycle 1).
 */
export async function payCharge(
  db: Kysely<Database>,
  charge: PixChargesTable,
  received: ReceivedPix,
  mail: DeliveryMail,
): Promise<{ charge: PixCharge; sale: Sale }> {
  const scope = { storeId: charge.store_id, livemode: charge.livemode === 1 };
  const result = await db.transaction().execute(async (trx) => {
    const now = nowIso();
    // The payer's bank time decides whether it was paid in time, not when the news reached us.
    if (!(await markPaid(trx, charge, received.paidAt))) {
      const current = (await findCharge(trx, scope, charge.id)) ?? charge;
      throw notPayable(effectiveStatus(current, now));
    }
    const paid = toPixCharge({ ...charge, status: 'paid', paid_at: received.paidAt }, now);
    const first = await recordEvent(trx, { ...scope, type: 'pix.paid', object: paid });
    const saleId = newUuid();
    const fromOrder = await completeOrderOfCharge(trx, charge, saleId, now);
    const fromSubscription = await activateSubscriptionOfCharge(trx, charge, received.paidAt);
    const { sale, event } = await approveSaleRecorded(
      trx,
      {
        id: saleId,
        store_id: charge.store_id,
        livemode: charge.livemode,
        amount_cents: charge.amount_cents,
        payment_method: 'pix',
        pix_charge_id: charge.id,
        pix_end_to_end_id: received.endToEndId,
        ...fromOrder,
        product_id: fromOrder.product_id ?? charge.product_id ?? null,
        customer: charge.customer,
        tracking: charge.tracking ?? '{}',
        ...fromSubscription.sale,
        created_at: now,
      },
      mail,
      first,
    );
    await fromSubscription.announce(event);
    return { charge: paid, sale };
  });
  chargeChanged(charge.id);
  countPixCharge('paid', scope.livemode);
  countSkippedEmail(result.sale);
  return result;
}

function notPayable(status: string) {
  if (status === 'paid') return invalidRequest('This Pix charge is already paid.');
  if (status === 'canceled') return invalidRequest('This Pix charge is canceled and can no longer be paid.');
  return invalidRequest('This Pix charge has expired and can no longer be paid.');
}
