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
import { findSale } from '../domain/sales/sales-repository.js';
import { announceCardOutcome } from './announce-card-outcome.js';
import { applyRefundOutcome } from './apply-refund-outcome.js';
import { chargeBackSale } from './charge-back-sale.js';
import { newActionLink } from './create-card-payment.js';
import { nextRefundId } from './refund-sale.js';

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

export interface CardOutcomeOptions {
  mail: DeliveryMail;
  publicUrl: string;
  /** STOREFRONT_CARD_RECONCILE_SCHEDULE: a refund left pending is read again on it. */
  scheduleMs?: readonly number[];
}

type Applied = { payment: CardPayment; changed: boolean };

/**
 * Applies what the PSP says of a payment (read back from the PSP after a notification or by the
 * reconciler, or made by a simulate_* call). An undecided one moves in ONE transaction with its event
 * and, for an approval, its sale. An approved one the PSP reports `refunded` (in its own panel, or a
 * refund we asked for settling) refunds its sale the way `POST /sales/{id}/refund` does; one it
 * reports `charged_back` charges its sale back, and the payment itself stays approved. Each change is
 * made only from the state it was read in, so two deliveries of one outcome change it once; the loser
 * answers the payment as it now is.
 */
export async function applyCardOutcome(
  db: Kysely<Database>,
  row: CardPaymentsTable,
  outcome: CardOutcome,
  options: CardOutcomeOptions,
): Promise<Applied> {
  if (row.status === 'approved' && outcome.status === 'refunded') return refunded(db, row, options);
  if (row.status === 'approved' && outcome.status === 'charged_back') return chargedBack(db, row);
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

const scopeOf = (row: CardPaymentsTable) => ({ storeId: row.store_id, livemode: row.livemode === 1 });

async function currently(db: Kysely<Database>, row: CardPaymentsTable, changed: boolean): Promise<Applied> {
  const current = (await findCardPayment(db, scopeOf(row), row.id)) ?? row;
  return { payment: toCardPayment(current), changed };
}

/** Refunded at the PSP: the refund we asked for settling, or one made in the PSP's panel. */
async function refunded(db: Kysely<Database>, row: CardPaymentsTable, options: CardOutcomeOptions) {
  const sale = row.sale_id === null ? undefined : await findSale(db, scopeOf(row), row.sale_id);
  if (!sale) return currently(db, row, false);
  const request =
    sale.refund_status === 'pending' && sale.refund_id !== null
      ? { refundId: sale.refund_id, requestedAt: sale.refund_requested_at! }
      : { refundId: nextRefundId(sale), requestedAt: nowIso() };
  await applyRefundOutcome(db, sale, request, { status: 'DEVOLVIDO', reason: null }, options.scheduleMs);
  const after = await currently(db, row, false);
  return { ...after, changed: after.payment.status === 'refunded' };
}

/** The buyer disputed the payment and the PSP took the money back: the sale is charged back. */
async function chargedBack(db: Kysely<Database>, row: CardPaymentsTable): Promise<Applied> {
  const now = nowIso();
  const sale = await db.transaction().execute(async (trx) => {
    const saleRow = row.sale_id === null ? undefined : await findSale(trx, scopeOf(row), row.sale_id);
    if (!saleRow) return null;
    const charged = await chargeBackSale(trx, saleRow, now);
    // Nothing is left to read back: a refund that was pending has nothing to settle now.
    if (charged) await updateCardPaymentFrom(trx, row, { next_check_at: null });
    return charged;
  });
  if (sale !== null) countCardPayment(row.provider, 'charged_back');
  return currently(db, row, sale !== null);
}
