import type { Kysely } from 'kysely';
import { insertCardNotification, markCardNotification } from '../domain/card-payments/card-notifications.js';
import type { CardNotificationOutcome } from '../domain/card-payments/card-notifications.js';
import {
  findCardPaymentAtProvider,
  updateCardPaymentFrom,
} from '../domain/card-payments/card-payments-repository.js';
import type { CardScope } from '../domain/card-payments/card-payments-repository.js';
import type { CardNotification } from '../domain/payments/card-provider.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { fromBool } from '../platform/db/schema.js';
import type { Database } from '../platform/db/schema.js';
import { prefixedId } from '../platform/values/ids.js';
import { isoAfter, nowIso } from '../platform/values/time.js';
import type { CardOutcomeOptions } from './apply-card-outcome.js';
import { currentCardPayment, readBackCardPayment } from './read-back-card-payment.js';

/** What is kept of a notification's body: a PSP's is a few kilobytes; the rest is dropped. */
const KEPT_BODY_CHARS = 64 * 1024;

export interface CardNotificationProcessing {
  /** Whether the notification named a payment, and how its read-back went. */
  outcome: CardNotificationOutcome;
  cardPaymentId: string | null;
  error: unknown;
}

/**
 * A PSP notification received for a store and mode (their callback token), persisted before anything
 * else. `forged` (a signature that does not verify): nothing more happens, and the caller answers 401.
 * Otherwise the caller answers 2xx at once and then runs `process`, which reads the payment back from
 * its PSP (never trusting the notification's own words) and applies it.
 */
export async function receiveCardNotification(
  db: Kysely<Database>,
  payments: PaymentProviders,
  scope: CardScope,
  notification: CardNotification,
  links: CardOutcomeOptions & { scheduleMs: readonly number[] },
): Promise<'forged' | { process(): Promise<CardNotificationProcessing> }> {
  const provider = await payments.card(scope);
  const named = provider.readNotification(notification);
  const now = nowIso();
  const id = prefixedId('cnt');
  const settled = named === 'forged' ? 'forged' : named === null ? 'ignored' : null;
  await insertCardNotification(db, {
    id,
    store_id: scope.storeId,
    livemode: fromBool(scope.livemode),
    provider: provider.name,
    provider_payment_id: named === 'forged' || named === null ? null : named.pspId,
    body: notification.body.slice(0, KEPT_BODY_CHARS),
    outcome: settled,
    received_at: now,
    processed_at: settled === null ? null : now,
  });
  if (named === 'forged') return 'forged';
  const ref = named;

  async function process(): Promise<CardNotificationProcessing> {
    if (ref === null) return { outcome: 'ignored', cardPaymentId: null, error: null };
    const row = await findCardPaymentAtProvider(db, scope, provider.name, ref.pspId);
    if (!row) {
      await markCardNotification(db, id, 'ignored', nowIso());
      return { outcome: 'ignored', cardPaymentId: null, error: null };
    }
    try {
      await readBackCardPayment(db, payments, row, links);
      await markCardNotification(db, id, 'processed', nowIso());
      return { outcome: 'processed', cardPaymentId: row.id, error: null };
    } catch (error) {
      // The PSP did not answer: the reconciler reads the payment again soon, whatever its status.
      const current = await currentCardPayment(db, row);
      if (current.next_check_at === null)
        await updateCardPaymentFrom(db, current, { next_check_at: isoAfter(links.scheduleMs[0]!) });
      await markCardNotification(db, id, 'failed', nowIso());
      return { outcome: 'failed', cardPaymentId: row.id, error };
    }
  }
  return { process };
}
