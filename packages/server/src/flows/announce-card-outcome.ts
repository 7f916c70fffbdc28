import type { Kysely } from 'kysely';
import type { DeliveryMail } from '../domain/accounts/test-mail-policy.js';
import { toCardPayment } from '../domain/card-payments/card-payment-object.js';
import type { CardPaymentsTable } from '../domain/card-payments/card-payment-object.js';
import type { Database } from '../platform/db/schema.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import type { StorefrontEvent } from '../platform/outbox/outbox.js';
import type { Sale } from '../domain/sales/sale-object.js';
import { approveSaleRecorded } from './approve-sale.js';
import { completeOrderOfCardPayment } from './complete-order.js';

/** Which event tells a store that a payment reached a status; `processing` is told by none. */
const EVENT_OF_STATUS = {
  approved: 'card_payment.approved',
  declined: 'card_payment.declined',
  requires_action: 'card_payment.requires_action',
  refunded: 'card_payment.refunded',
} as const;

/**
 * Records what a payment's new status means, in the transaction that wrote it: its event, and for an
 * approval the sale (whose id the row already carries), the order it completes and `sale.approved`
 * after `card_payment.approved`. Every way a card payment moves (its creation, a PSP notification,
 * the reconciler, the simulate_* calls) comes through here, so they all write the same things.
 */
export async function announceCardOutcome(
  trx: Kysely<Database>,
  row: CardPaymentsTable,
  mail: DeliveryMail,
  now: string,
  /** An event of the same transaction this one must follow (a page order's `order.created`). */
  after?: StorefrontEvent,
): Promise<{ event: StorefrontEvent | null; sale: Sale | null }> {
  if (row.status === 'processing') return { event: null, sale: null };
  const scope = { storeId: row.store_id, livemode: row.livemode === 1 };
  const event = await recordEvent(trx, {
    ...scope,
    type: EVENT_OF_STATUS[row.status],
    object: toCardPayment(row),
    ...(after !== undefined && { after }),
  });
  if (row.status !== 'approved' || row.sale_id === null) return { event, sale: null };
  const fromOrder = await completeOrderOfCardPayment(trx, row, row.sale_id, now);
  const { sale } = await approveSaleRecorded(
    trx,
    {
      id: row.sale_id,
      store_id: row.store_id,
      livemode: row.livemode,
      // The goods' price: the buyer's interest goes to the PSP's and the seller's terms, not the sale.
      amount_cents: row.amount_cents,
      payment_method: 'card',
      pix_charge_id: null,
      pix_end_to_end_id: null,
      ...fromOrder,
      product_id: fromOrder.product_id ?? row.product_id,
      customer: row.customer,
      tracking: row.tracking,
      card_payment_id: row.id,
      installments: row.installments,
      created_at: now,
    },
    mail,
    event,
  );
  return { event, sale };
}
