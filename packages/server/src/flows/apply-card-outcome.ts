import type { Kysely } from 'kysely';
import type { DeliveryMail } from '../domain/accounts/test-mail-policy.js';
import { toCardPayment } from '../domain/card-payments/card-payment-object.js';
import type { CardPayment, CardPaymentsTable } from '../domain/card-payments/card-payment-object.js';
import { findCardPayment, updateCardPaymentFrom } from '../domain/card-payments/card-payments-repository.js';
import { cardPaymentChanged } from '../domain/card-payments/card-signals.js';
import type { CardOutcome } from '../domain/payments/card-provider.js';
import type { Database } from '../platform/db/schema.js';
import { countCardPayment } from '../platform/metrics/metrics.js';
import { newUuid } from '../platform/values/ids.js';
import { nowIso } from '../platform/values/time.js';
import { announceCardOutcome } from './announce-card-outcome.js';
import { newActionLink } from './create-card-payment.js';

/** Statuses the PSP may still change on its own: the buyer authenticates, the issuer decides. */
const UNDECIDED: ReadonlySet<CardPaymentsTable['status']> = new Set(['requires_action', 'processing']);

/**
 * What a PSP's outcome changes in an undecided payment (requires_action or processing), or null
 * when it changes nothing. Undecided → approved makes the sale; → declined keeps why.
 */
function changesOf(
  row: CardPaymentsTable,
  outcome: CardOutcome,
  publicUrl: string,
  now: string,
): Partial<CardPaymentsTable> | null {
  if (!UNDECIDED.has(row.status) || outcome.status === row.status) return null;
  const card = outcome.card
    ? {
        card_brand: outcome.card.brand,
        card_last4: outcome.card.last4,
        card_exp_month: outcome.card.expMonth,
        card_exp_year: outcome.card.expYear,
      }
    : {};
  const settled = { ...card, next_check_at: null, challenge: null, next_action_url: null };
  switch (outcome.status) {
    case 'approved':
      return {
        ...settled,
        status: 'approved',
        sale_id: newUuid(),
        approved_at: now,
        authorization_code: outcome.authorizationCode,
        provider_charge_id: outcome.pspChargeId ?? row.provider_charge_id,
      };
    case 'declined':
      return {
        ...settled,
        status: 'declined',
        declined_at: now,
        decline_code: outcome.decline?.code ?? 'issuer_declined',
        decline_provider_code: outcome.decline?.providerCode ?? null,
      };
    case 'requires_action': {
      const action = newActionLink(publicUrl);
      return {
        ...card,
        status: 'requires_action',
        challenge: outcome.challenge === null ? null : JSON.stringify(outcome.challenge),
        next_action_url: action.url,
        action_token_hash: action.tokenHash,
      };
    }
    case 'processing':
      return { ...card, status: 'processing', challenge: null, next_action_url: null };
    // An undecided payment is never refunded or disputed before it is approved; read it again later.
    case 'refunded':
    case 'charged_back':
      return null;
  }
}

/**
 * Applies what the PSP says of an undecided payment (read back from the PSP after a notification or
 * by the reconciler, or made by a simulate_* call), in ONE transaction with its event and, for an
 * approval, its sale. The change is made only from the status the payment was read in, so two
 * deliveries of one outcome change it once; the loser answers the payment as it now is.
 */
export async function applyCardOutcome(
  db: Kysely<Database>,
  row: CardPaymentsTable,
  outcome: CardOutcome,
  options: { mail: DeliveryMail; publicUrl: string },
): Promise<{ payment: CardPayment; changed: boolean }> {
  const now = nowIso();
  const changes = changesOf(row, outcome, options.publicUrl, now);
  if (changes === null) return { payment: toCardPayment(row), changed: false };
  const scope = { storeId: row.store_id, livemode: row.livemode === 1 };
  const result = await db.transaction().execute(async (trx) => {
    if (!(await updateCardPaymentFrom(trx, row, changes))) return null;
    const updated: CardPaymentsTable = { ...row, ...changes };
    await announceCardOutcome(trx, updated, options.mail, now);
    return updated;
  });
  if (result === null) {
    const current = (await findCardPayment(db, scope, row.id)) ?? row;
    return { payment: toCardPayment(current), changed: false };
  }
  countCardPayment(row.provider, result.status);
  cardPaymentChanged(row.id);
  return { payment: toCardPayment(result), changed: true };
}
