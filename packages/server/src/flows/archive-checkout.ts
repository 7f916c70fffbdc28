import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { unlinkProductsFromCheckout } from '../domain/catalogue/checkout-links.js';
import { setCheckoutArchived } from '../domain/checkouts/checkout-service.js';
import type { Checkout, CheckoutsTable } from '../domain/checkouts/checkout-object.js';
import type { WriteContext } from '../domain/kernel/write-context.js';

/**
 * Archives a checkout (`checkout.archived`, once) and moves its products back to the default
 * checkout (`product.updated` each), in the caller's transaction.
 */
export async function archiveCheckout(
  trx: Kysely<Database>,
  ctx: WriteContext,
  row: CheckoutsTable,
): Promise<Checkout> {
  const { checkout, changed } = await setCheckoutArchived(trx, ctx, row);
  if (changed) await unlinkProductsFromCheckout(trx, ctx, row.id);
  return checkout;
}
