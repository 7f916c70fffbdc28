import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { recordEvent } from '../platform/outbox/outbox.js';
import type { StorefrontEvent } from '../platform/outbox/outbox.js';
import { queueConversion } from '../domain/conversions/queue-conversion.js';
import { toOrder } from '../domain/orders/order-object.js';
import type { OrdersTable } from '../domain/orders/order-object.js';
import { orderUrl, orderUrlOf } from '../domain/orders/order-links.js';
import type { OrderEventObject, OrderLinkConfig } from '../domain/orders/order-links.js';

/**
 * Records `order.created` or `order.abandoned` in the caller's transaction (the change's own); a
 * created order also queues its Meta `InitiateCheckout` when the store has Meta set. Answers the
 * event, for a caller whose next event must follow it. `token`: the order's token when the caller
 * has just made it, so its sealed copy is not opened again (an AES-GCM decryption per order).
 */
export async function recordOrderEvent(
  trx: Kysely<Database>,
  config: OrderLinkConfig,
  type: 'order.created' | 'order.abandoned',
  row: OrdersTable,
  token?: string,
): Promise<StorefrontEvent> {
  const url = token === undefined ? orderUrl(config, row) : orderUrlOf(config, token);
  const object: OrderEventObject = { ...toOrder(row), order_url: url };
  const event = await recordEvent(trx, { storeId: row.store_id, livemode: row.livemode === 1, type, object });
  if (type === 'order.created')
    await queueConversion(trx, { storeId: row.store_id, kind: 'InitiateCheckout', eventId: row.id });
  return event;
}
