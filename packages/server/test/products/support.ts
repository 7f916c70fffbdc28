import { expect } from 'vitest';
import { expectError } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';

/** Exactly these keys, nothing internal. */
export const PRODUCT_KEYS = [
  'object',
  'id',
  'codigo',
  'nome',
  'slug',
  'descricao',
  'imagem',
  'preco',
  'ativo',
  'checkout_id',
  'link_acesso',
  'garantia',
  'order_bump_enabled',
  'order_bump_product_id',
  'order_bump_title',
  'order_bump_description',
  'delivery_email_subject',
  'delivery_email_body',
  'recorrencia',
  'retry_policy',
  'created_at',
  'updated_at',
].sort();

export const CODIGO = /^PRD-[0-9A-HJKMNP-TV-Z]{8}$/;

let counter = 0;

/** Creates a product over HTTP and returns it (asserting the 201); names are unique unless given. */
export async function createProduct(api: TestApi, key: string, body: Record<string, unknown> = {}) {
  counter += 1;
  const res = await api.as(key).post('/products', { nome: `Produto ${counter}`, preco: 10, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** The events of a type recorded for one object, as delivered (parsed payloads). */
export async function eventsFor(api: TestApi, storeId: string, type: string, objectId: string) {
  const rows = await api.db
    .selectFrom('events')
    .select('payload')
    .where('store_id', '=', storeId)
    .where('type', '=', type)
    .orderBy('created_at')
    .execute();
  return rows.map((row) => JSON.parse(row.payload)).filter((event) => event.data.object.id === objectId);
}

export function productRow(api: TestApi, id: string) {
  return api.db.selectFrom('products').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countRows(api: TestApi, table: 'products' | 'events' | 'checkouts', storeId: string) {
  const row = await api.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('store_id', '=', storeId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * A body refused the same way on create and on PATCH of `target`: 400 naming `param`, and nothing
 * written (no product, no event, the target unchanged).
 */
export async function expectRefusedOnCreateAndPatch(
  api: TestApi,
  { key, storeId, target }: { key: string; storeId: string; target: { id: string } },
  body: Record<string, unknown>,
  param: string,
): Promise<void> {
  const products = await countRows(api, 'products', storeId);
  const events = await countRows(api, 'events', storeId);
  const before = await productRow(api, target.id);
  expectError(
    await api.as(key).post('/products', { nome: 'Refused', preco: 1, ...body }),
    400,
    'invalid_request',
    param,
  );
  expectError(await api.as(key).patch(`/products/${target.id}`, body), 400, 'invalid_request', param);
  expect(await countRows(api, 'products', storeId)).toBe(products);
  expect(await countRows(api, 'events', storeId)).toBe(events);
  expect(await productRow(api, target.id)).toEqual(before);
}
