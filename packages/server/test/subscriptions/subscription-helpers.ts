import type { TestApi } from '../support/test-api.js';

/** A valid CPF (check digits) for the subscriptions' required document. */
export const CPF = '52998224725';

export const BUYER = { name: 'Ana Souza', email: 'ana@example.com', document: CPF };

/** A recurring product (R$ 49,90 a month unless told otherwise) of the key's store. */
export async function recurringProduct(
  api: TestApi,
  key: string,
  fields: Record<string, unknown> = {},
): Promise<any> {
  const res = await api
    .as(key)
    .post('/products', { nome: 'Clube do Violão', preco: 49.9, recorrencia: 'mensal', ...fields });
  if (res.status !== 201) throw new Error(`product: ${res.status} ${res.text}`);
  return res.body;
}

/** A new subscription to `productId`, answered with its first charge. */
export async function subscribe(
  api: TestApi,
  key: string,
  productId: string,
  headers?: Record<string, string>,
) {
  return api.as(key).post('/subscriptions', { product_id: productId, customer: BUYER }, headers);
}

/** The events of a store whose object has this id, oldest first, as their types. */
export async function eventTypesOf(api: TestApi, storeId: string, objectId: string): Promise<string[]> {
  const rows = await api.db
    .selectFrom('events')
    .select(['type', 'payload'])
    .where('store_id', '=', storeId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.filter((row) => JSON.parse(row.payload).data.object.id === objectId).map((row) => row.type);
}
