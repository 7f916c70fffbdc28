import type { Kysely } from 'kysely';
import { toCardPayment } from '../domain/card-payments/card-payment-object.js';
import type { CardPaymentsTable } from '../domain/card-payments/card-payment-object.js';
import { updateCardPaymentFrom } from '../domain/card-payments/card-payments-repository.js';
import type { CardPspRef, CardRefundOutcome } from '../domain/payments/card-provider.js';
import type { Devolucao } from '../domain/payments/pix-provider.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { nextRefundCheckAt } from '../domain/pix/live/reconcile-schedule.js';
import type { SalesTable } from '../domain/sales/sale-object.js';
import type { Database } from '../platform/db/schema.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import type { StorefrontEvent } from '../platform/outbox/outbox.js';
import { createHash } from 'node:crypto';

/** A card refund's outcome in the words the refund of a sale is written in (the Pix ones). */
const AS_DEVOLUCAO: Record<CardRefundOutcome['status'], Devolucao['status']> = {
  succeeded: 'DEVOLVIDO',
  pending: 'EM_PROCESSAMENTO',
  failed: 'NAO_REALIZADO',
};

function cardPaymentOf(trx: Kysely<Database>, sale: SalesTable) {
  return trx
    .selectFrom('card_payments')
    .selectAll()
    .where('id', '=', sale.card_payment_id!)
    .where('store_id', '=', sale.store_id)
    .executeTakeFirst();
}

/**
 * The whole payment as its PSP charged it, what a whole refund returns: the buyer's total, interest
 * included (`total_amount`), where our table priced the installments (Pagar.me's order `amount`, the
 * simulated provider); the goods' price at Mercado Pago, whose `transaction_amount` it is, the
 * buyer's interest being Mercado Pago's own financing, returned with it.
 */
function chargedAtPsp(payment: CardPaymentsTable): number {
  return payment.provider === 'mercadopago' ? payment.amount_cents : payment.total_amount_cents;
}

/**
 * Asks the card sale's PSP to return the whole payment (`chargedAtPsp`). The PSP's idempotency key
 * is derived from the refund's own id, so a retried refund reaches the PSP as the same request and
 * never refunds twice; a new attempt after a failed one has a new refund id, hence a new key.
 */
export async function refundCardSale(
  db: Kysely<Database>,
  payments: PaymentProviders,
  sale: SalesTable,
  refundId: string,
): Promise<Pick<Devolucao, 'status' | 'reason'>> {
  const payment = await cardPaymentOf(db, sale);
  if (!payment || payment.provider_payment_id === null)
    throw new Error(`card sale ${sale.id} has no card payment at a PSP to refund`);
  const provider = await payments.card({ storeId: sale.store_id, livemode: sale.livemode === 1 });
  const ref: CardPspRef = { pspId: payment.provider_payment_id, pspChargeId: payment.provider_charge_id };
  const idempotencyKey = createHash('sha256')
    .update(JSON.stringify(['card-refund', sale.store_id, sale.livemode, refundId]))
    .digest('hex');
  const outcome = await provider.refund(ref, { idempotencyKey, amountCents: chargedAtPsp(payment) });
  return { status: AS_DEVOLUCAO[outcome.status], reason: outcome.reason };
}

/**
 * The card payment's side of its sale's refund, in the transaction that writes the refund's outcome:
 * a pending refund makes the payment due for a read-back at its PSP (the card reconciler follows it,
 * not the Pix one); a refund done makes the payment `refunded` with `card_payment.refunded`, recorded
 * before the sale's own event. Answers the payment and its event when it became refunded.
 */
export async function recordCardRefund(
  trx: Kysely<Database>,
  sale: SalesTable,
  outcome: Devolucao['status'],
  requestedAt: string,
  now: string,
  scheduleMs?: readonly number[],
): Promise<{ payment: CardPaymentsTable; event: StorefrontEvent } | null> {
  const payment = await cardPaymentOf(trx, sale);
  if (!payment || payment.status !== 'approved') return null;
  if (outcome !== 'DEVOLVIDO') {
    const next =
      outcome === 'EM_PROCESSAMENTO' ? nextRefundCheckAt(requestedAt, new Date(now), scheduleMs) : null;
    await updateCardPaymentFrom(trx, payment, { next_check_at: next });
    return null;
  }
  const changes = { status: 'refunded' as const, refunded_at: now, next_check_at: null };
  if (!(await updateCardPaymentFrom(trx, payment, changes))) return null;
  const refunded = { ...payment, ...changes };
  const event = await recordEvent(trx, {
    storeId: sale.store_id,
    livemode: sale.livemode === 1,
    type: 'card_payment.refunded',
    object: toCardPayment(refunded),
  });
  return { payment: refunded, event };
}
