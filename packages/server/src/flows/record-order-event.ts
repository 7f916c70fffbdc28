import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import type { StorefrontEvent } from '../platform/outbox/outbox.js';
import { queueConversion } from '../domain/conversions/queue-conversion.js';
import { toOrder } from '../domain/orders/order-object.js';
import type { OrdersTable } from '../domain/orders/order-object.js';
import { orderUrl } from '../domain/orders/order-links.js';
import type { OrderEventObject, OrderLinkConfig } from '../domain/orders/order-links.js';

/**
 * Records `order.created` or `order.abandoned` in the caller's transaction (the change's own); a
 * created order also queues its Meta `InitiateCheckout` when the store has Meta set. Answers the
 * event, for a caller whose next event must follow it.
 */
export async function recordOrderEvent(
  trx: Kysely<Database>,
  config: OrderLinkConfig,
  type: 'order.created' | 'order.abandoned',
  row: OrdersTable,
): Promise<StorefrontEvent> {
  const object: OrderEventObject = { ...toOrder(row), order_url: orderUrl(config, row) };
  const event = await recordEvent(trx, { storeId: row.store_id, livemode: row.livemode === 1, type, object });
  if (type === 'order.created')
    await queueConversion(trx, { storeId: row.store_id, kind: 'InitiateCheckout', eventId: row.id });
  return event;
}
