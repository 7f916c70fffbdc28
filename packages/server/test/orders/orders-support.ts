import { hashOrderToken } from '../../src/orders/order-object.js';
import type { TestApi } from '../support/test-api.js';

/** The id of the order behind an order page's token (the API names orders by id). */
export async function orderIdOf(api: TestApi, token: string): Promise<string> {
  const row = await api.db
    .selectFrom('orders')
    .select('id')
    .where('token_hash', '=', hashOrderToken(token))
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The objects of a store's recorded events of one type, oldest first. */
export async function eventObjects(api: TestApi, storeId: string, type: string): Promise<any[]> {
  const rows = await api.db
    .selectFrom('events')
    .select('payload')
    .where('store_id', '=', storeId)
    .where('type', '=', type)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => JSON.parse(row.payload).data.object);
}
