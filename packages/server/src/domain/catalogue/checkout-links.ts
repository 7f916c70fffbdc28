import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { recordEvent } from '../../platform/outbox/outbox.js';
import { notFound } from '../../platform/http/api-error.js';
import { toProduct } from './product-object.js';
import type { ProductsTable } from './product-object.js';
import type { WriteContext } from '../kernel/write-context.js';
import { findProduct, unlinkCheckout, updateProduct } from './products-repository.js';

/*
 * How checkouts change products. Both run inside the checkout's own transaction, and a product whose
 * `checkout_id` changes this way gets its `product.updated` event like any other change.
 */

const updated = (trx: Kysely<Database>, ctx: WriteContext, row: ProductsTable) =>
  recordEvent(trx, {
    storeId: ctx.storeId,
    type: 'product.updated',
    livemode: ctx.livemode,
    object: toProduct(row),
  });

/** POST /checkouts with `product_id`: a product of another store, or none, is 404. */
export async function linkProductToCheckout(
  trx: Kysely<Database>,
  ctx: WriteContext,
  productId: string,
  checkoutId: string,
): Promise<void> {
  const row = await findProduct(trx, ctx.storeId, productId);
  if (!row) throw notFound('product', productId);
  await updated(trx, ctx, await updateProduct(trx, row, { checkout_id: checkoutId }));
}

/** Archiving a checkout: its products fall back to the default checkout. */
export async function unlinkProductsFromCheckout(
  trx: Kysely<Database>,
  ctx: WriteContext,
  checkoutId: string,
): Promise<void> {
  for (const row of await unlinkCheckout(trx, ctx.storeId, checkoutId)) await updated(trx, ctx, row);
}
