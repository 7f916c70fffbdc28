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
