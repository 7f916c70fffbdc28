import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { invalidRequest } from '../../platform/http/api-error.js';
import type { UpdateProductBody } from './product-schemas.js';
import { findProduct, slugTaken, takenSlugs } from './products-repository.js';
import { slugCandidate } from './slug.js';

/*
 * The rules of a product body that need the store's data. Ids sent in a body are validated like any
 * other field: an unknown, foreign or unusable one is 400 naming the param, never 404 (that is for
 * the resource in the path), and another store's row reads exactly like a missing one.
 */

/**
 * A non-archived checkout of the store. The check is a no-op update rather than a read so
 * that it holds the checkout's row lock until commit: an archive running at the same time either
 * finishes first (and we refuse) or waits and then unlinks this product with the others.
 */
async function checkUsableCheckout(
  trx: Kysely<Database>,
  storeId: string,
  checkoutId: string,
): Promise<void> {
  const held = await trx
    .updateTable('checkouts')
    .set({ archived: 0 })
    .where('store_id', '=', storeId)
    .where('id', '=', checkoutId)
    .where('archived', '=', 0)
    .executeTakeFirst();
  if (held.numUpdatedRows > 0n) return;
  // Not updated: archived, or not the store's at all (the row is read here, not through the
  // checkouts module, which this rule must not import).
  const archived =
    (await trx
      .selectFrom('checkouts')
      .select('id')
      .where('store_id', '=', storeId)
      .where('id', '=', checkoutId)
      .executeTakeFirst()) !== undefined;
  throw invalidRequest(
    archived
      ? `Checkout '${checkoutId}' is archived and cannot be given to a product.`
      : `No such checkout: '${checkoutId}'.`,
    'checkout_id',
  );
}

async function checkOrderBump(
  trx: Kysely<Database>,
  storeId: string,
  bumpId: string,
  selfId: string | null,
): Promise<void> {
  const param = 'order_bump_product_id';
  if (bumpId === selfId) throw invalidRequest('A product cannot be its own order bump.', param);
  if (!(await findProduct(trx, storeId, bumpId)))
    throw invalidRequest(`No such product: '${bumpId}'.`, param);
}

async function checkSlugFree(
  trx: Kysely<Database>,
  storeId: string,
  slug: string,
  selfId: string | null,
): Promise<void> {
  const taken = await takenSlugs(trx, storeId, [slug], selfId ?? undefined);
  if (taken.size > 0)
    throw invalidRequest(`Another product of this store already uses the slug '${slug}'.`, 'slug');
}

/** Checks the fields that were sent; `selfId` is the product being edited (null on creation). */
export async function checkStoreRules(
  trx: Kysely<Database>,
  storeId: string,
  body: UpdateProductBody,
  selfId: string | null,
): Promise<void> {
  if (body.slug !== undefined) await checkSlugFree(trx, storeId, body.slug, selfId);
  if (body.checkout_id) await checkUsableCheckout(trx, storeId, body.checkout_id);
  if (body.order_bump_product_id) await checkOrderBump(trx, storeId, body.order_bump_product_id, selfId);
}

const SLUG_BATCH = 20;

/**
 * The first of `base`, `base-2`, `base-3`… that the store does not use yet. Most names
 * are new to the store, so the base alone is looked up first (one index probe instead of twenty);
 * the suffixes are then searched twenty at a time.
 */
export async function freeSlug(trx: Kysely<Database>, storeId: string, base: string): Promise<string> {
  if (!(await slugTaken(trx, storeId, base))) return base;
  for (let first = 2; ; first += SLUG_BATCH) {
    const candidates = Array.from({ length: SLUG_BATCH }, (_, i) => slugCandidate(base, first + i));
    const taken = await takenSlugs(trx, storeId, candidates);
    const free = candidates.find((candidate) => !taken.has(candidate));
    if (free !== undefined) return free;
  }
}
