import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { ConversionEventsTable } from './conversion-event.js';

export type SaleConversion = Pick<
  ConversionEventsTable,
  | 'id'
  | 'kind'
  | 'event_id'
  | 'status'
  | 'attempts'
  | 'response_status'
  | 'last_error'
  | 'created_at'
  | 'sent_at'
>;

/**
 * The Meta events of a sale, for its dashboard page: its Purchase and its page order's
 * InitiateCheckout (the `conversion_events_cause` and `orders_sale` indexes), oldest first.
 */
export function saleConversions(
  db: Kysely<Database>,
  sale: { id: string; store_id: string },
): Promise<SaleConversion[]> {
  const orderOfSale = db
    .selectFrom('orders')
    .select('id')
    .where('store_id', '=', sale.store_id)
    .where('sale_id', '=', sale.id);
  return db
    .selectFrom('conversion_events')
    .select([
      'id',
      'kind',
      'event_id',
      'status',
      'attempts',
      'response_status',
      'last_error',
      'created_at',
      'sent_at',
    ])
    .where('store_id', '=', sale.store_id)
    .where((eb) => eb.or([eb('event_id', '=', sale.id), eb('event_id', 'in', orderOfSale)]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
