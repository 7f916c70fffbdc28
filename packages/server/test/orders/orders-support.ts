import { hashOrderToken } from '../../src/domain/orders/order-object.js';
import { eventsFor } from '../products/support.js';
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

/** What the events of a type recorded for one object carried (`data.object`), oldest first. */
export async function eventObjectsFor(api: TestApi, storeId: string, type: string, objectId: string) {
  return (await eventsFor(api, storeId, type, objectId)).map((event) => event.data.object);
}
