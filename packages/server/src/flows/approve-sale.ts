import type { Kysely } from 'kysely';
import { countSale } from '../domain/analytics/daily-totals.js';
import { queueConversion } from '../domain/conversions/queue-conversion.js';
import type { DeliveryMail } from '../domain/accounts/test-mail-policy.js';
import type { Database } from '../platform/db/schema.js';
import type { SaleDeliveryEmailColumns } from '../domain/sales/delivery-email-object.js';
import { deliveryEmailOf, queueDeliveryEmail } from './queue-delivery-email.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import type { StorefrontEvent } from '../platform/outbox/outbox.js';
import { NO_REFUND, toSale } from '../domain/sales/sale-object.js';
import type { Sale, SalesTable } from '../domain/sales/sale-object.js';
import { insertSale } from '../domain/sales/sales-repository.js';

/**
 * What tells one new sale from another; status, refund and e-mail columns start the same for all,
 * and a sale bills no subscription unless it says so.
 */
export type NewSale = Omit<
  SalesTable,
  | 'status'
  | 'refunded_at'
  | 'subscription_id'
  | 'cycle'
  | keyof typeof NO_REFUND
  | keyof SaleDeliveryEmailColumns
> &
  Partial<Pick<SalesTable, 'subscription_id' | 'cycle'>>;

/**
 * Creates an approved sale in the caller's transaction: inserts it, adds it to the day's totals,
 * queues its delivery e-mail (and its Meta `Purchase` when the store has Meta set) and records `sale.approved` (after `after`, the event it must follow, when given). Every approved sale
 * is made here, a paid charge's and a free purchase-page order's alike, so they carry the same columns.
 */
export async function approveSale(
  trx: Kysely<Database>,
  fields: NewSale,
  mail: DeliveryMail,
  after?: StorefrontEvent,
): Promise<Sale> {
  return (await approveSaleRecorded(trx, fields, mail, after)).sale;
}

/** `approveSale`, also answering its `sale.approved` event, for a caller whose next event must follow it. */
export async function approveSaleRecorded(
  trx: Kysely<Database>,
  fields: NewSale,
  mail: DeliveryMail,
  after?: StorefrontEvent,
): Promise<{ sale: Sale; event: StorefrontEvent }> {
  const row = await deliveryEmailOf(
    trx,
    { subscription_id: null, cycle: null, ...fields, status: 'approved', refunded_at: null, ...NO_REFUND },
    mail,
  );
  await insertSale(trx, row);
  await queueDeliveryEmail(trx, row);
  const sale = toSale(row);
  await queueConversion(trx, { storeId: row.store_id, kind: 'Purchase', eventId: row.id });
  const event = await recordEvent(trx, {
    storeId: row.store_id,
    livemode: row.livemode === 1,
    type: 'sale.approved',
    object: sale,
    ...(after !== undefined && { after }),
  });
  // Last: the store's row of the day is one every sale of the store updates, and on PostgreSQL its
  // lock is held until the commit; taken late, concurrent purchases wait on it for less.
  await countSale(trx, row);
  return { sale, event };
}
