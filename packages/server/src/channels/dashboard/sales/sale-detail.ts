import type { Kysely } from 'kysely';
import { jsonField } from '../../../platform/db/json-fields.js';
import type { Database } from '../../../platform/db/schema.js';
import { isUuid } from '../../../platform/values/ids.js';
import type { SalesTable } from '../../../domain/sales/sale-object.js';

/** A sale of the store by id, whatever its mode; undefined for another store's or no sale. */
export async function storeSale(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<SalesTable | undefined> {
  if (!isUuid(id)) return undefined;
  return db
    .selectFrom('sales')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The Pix charge a sale was paid with, in the same store. */
export function saleCharge(db: Kysely<Database>, sale: SalesTable) {
  if (sale.pix_charge_id === null) return Promise.resolve(undefined);
  return db
    .selectFrom('pix_charges')
    .select(['id', 'status', 'amount_cents', 'txid', 'created_at', 'paid_at', 'expires_at'])
    .where('store_id', '=', sale.store_id)
    .where('id', '=', sale.pix_charge_id)
    .executeTakeFirst();
}

/** The card payment a card sale was paid with, in the same store. */
export function saleCardPayment(db: Kysely<Database>, sale: SalesTable) {
  if (!sale.card_payment_id) return Promise.resolve(undefined);
  return db
    .selectFrom('card_payments')
    .select([
      'id',
      'status',
      'provider',
      'amount_cents',
      'installments',
      'installment_amount_cents',
      'total_amount_cents',
      'card_brand',
      'card_last4',
      'authorization_code',
      'decline_code',
      'decline_provider_code',
      'approved_at',
    ])
    .where('store_id', '=', sale.store_id)
    .where('id', '=', sale.card_payment_id)
    .executeTakeFirst();
}

/** At most this many events are shown on a sale's page, oldest first. */
export const SALE_EVENTS_SHOWN = 100;

/** The events about the sale and about its charge or card payment, oldest first (the `events_object` index). */
export function saleEvents(db: Kysely<Database>, sale: SalesTable) {
  const ids = [sale.id, sale.pix_charge_id, sale.card_payment_id].filter((id) => typeof id === 'string');
  return db
    .selectFrom('events')
    .select(['id', 'type', 'created_at'])
    .where('store_id', '=', sale.store_id)
    .where(jsonField(db, 'eventObjectId'), 'in', ids)
    .orderBy('created_at')
    .orderBy('id')
    .limit(SALE_EVENTS_SHOWN)
    .execute();
}
