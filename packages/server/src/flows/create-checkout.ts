import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { linkProductToCheckout } from '../domain/catalogue/checkout-links.js';
import { addCheckout } from '../domain/checkouts/checkout-service.js';
import type { Checkout } from '../domain/checkouts/checkout-object.js';
import type { CreateCheckoutBody } from '../domain/checkouts/checkout-schemas.js';
import type { WriteContext } from '../domain/kernel/write-context.js';

/**
 * POST /checkouts and the dashboard's "Novo checkout": the checkout (`checkout.created`), then, with
 * `product_id`, that product moved onto it (`product.updated`), in the caller's transaction.
 */
export async function createCheckout(
  trx: Kysely<Database>,
  ctx: WriteContext,
  body: CreateCheckoutBody,
): Promise<Checkout> {
  const checkout = await addCheckout(trx, ctx, body);
  if (body.product_id) await linkProductToCheckout(trx, ctx, body.product_id, checkout.id);
  return checkout;
}
