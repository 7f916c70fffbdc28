import type { Kysely } from 'kysely';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { ApiError } from '../platform/http/api-error.js';
import { cancelCharge } from './cancel-charge.js';
import { effectiveStatus } from '../domain/pix/pix-charge-object.js';
import { findCharge } from '../domain/pix/pix-charges-repository.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { endSubscription } from './subscription-outcomes.js';
import { queueCancellationEmail } from './queue-cancellation-email.js';
import type { SubscriptionsTable } from '../domain/subscriptions/subscription-object.js';
import { findSubscription } from '../domain/subscriptions/subscriptions-repository.js';
import { recordAudit } from '../domain/accounts/audit.js';
import type { Actor } from '../domain/kernel/write-context.js';
import type { Customer } from '../domain/kernel/customer.js';

/**
 * The merchant cancels (API or dashboard) → `canceled`, reason `merchant`, `subscription.canceled`.
 * A pending one first loses its first charge (so the code can no longer pay and authorise it; a
 * charge found paid at the PSP makes its sale instead, and in test mode activates it, and it is then
 * canceled as an authorised one). An authorised one is canceled at the PSP first (live: `PATCH /rec/{idRec}` `CANCELADA`), so nothing
 * is billed after we say it ended. The buyer's e-mail saying so is queued in the cancel's transaction
 * (when they gave an address), and the `actor`'s audit entry commits with the cancel. An ended
 * subscription is 400.
 */
export async function cancelSubscription(
  db: Kysely<Database>,
  payments: PaymentProviders,
  row: SubscriptionsTable,
  mail: Pick<Config, 'smtp'>,
  actor: Actor,
): Promise<SubscriptionsTable> {
  const scope = { storeId: row.store_id, livemode: row.livemode === 1 };
  let current = row;
  let firstChargePaid = false;
  if (current.status === 'pending') {
    const charge = await findCharge(db, scope, current.first_charge_id);
    if (charge && effectiveStatus(charge) === 'pending') {
      await cancelCharge(db, payments, charge, mail).catch((error: unknown) => {
        // Paid, expired or canceled meanwhile: the subscription's state, read again, says what to end.
        if (!(error instanceof ApiError) || error.statusCode !== 400 || error.code !== 'invalid_request')
          throw error;
      });
    }
    current = (await findSubscription(db, scope, row.id)) ?? current;
    const first = await findCharge(db, scope, current.first_charge_id);
    firstChargePaid = first !== undefined && effectiveStatus(first) === 'paid';
  }
  // Live, a pending one whose first charge was paid may already be approved at the PSP (it is read
  // back there before it activates): its authorisation is ended there too.
  const authorised =
    current.status === 'active' ||
    current.status === 'past_due' ||
    (current.status === 'pending' && firstChargePaid);
  if (authorised && current.id_rec !== null) {
    const provider = await payments.recurring(scope);
    await provider.cancelAuthorisation(current.id_rec);
  }
  const customer = JSON.parse(row.customer) as Customer;
  const detail = `${row.id} (${customer.name ?? customer.email ?? '—'})`;
  return db.transaction().execute(async (trx) => {
    const ended = await endSubscription(trx, current, ['pending', 'active', 'past_due'], 'merchant');
    await recordAudit(trx, row.store_id, actor, 'subscription_canceled', detail);
    await queueCancellationEmail(trx, ended, mail);
    return ended;
  });
}
