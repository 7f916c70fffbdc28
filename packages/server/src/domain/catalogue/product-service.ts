import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../platform/db/database.js';
import { fromBool } from '../../platform/db/schema.js';
import type { Database } from '../../platform/db/schema.js';
import { recordEvent } from '../../platform/outbox/outbox.js';
import { invalidRequest, notFound } from '../../platform/http/api-error.js';
import type { KeepAnswer } from '../../platform/http/idempotency.js';
import { isUuid, newUuid } from '../../platform/values/ids.js';
import { toCents } from '../../platform/values/money.js';
import { nowIso } from '../../platform/values/time.js';
import { retryOnUniqueViolation } from '../../platform/db/unique-retry.js';
import { newProductCode } from './product-code.js';
import { toProduct } from './product-object.js';
import type { Product, ProductsTable } from './product-object.js';
import type { CreateProductBody, UpdateProductBody } from './product-schemas.js';
import { findProduct, insertProduct, markInactive, updateProduct } from './products-repository.js';
import { slugify } from './slug.js';
import { checkStoreRules, freeSlug } from './store-rules.js';
import type { OnWrite, WriteContext } from '../kernel/write-context.js';

/**
 * A generated codigo or slug can collide with a concurrent creation in the same store; the unique
 * index refuses the loser, whose fresh attempt takes the next free slug. N creations racing for one
 * name need up to N attempts, so this bounds how many may race before one answers 500 (retryable).
 */
const CREATE_ATTEMPTS = 10;

export async function productOr404(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<ProductsTable> {
  const row = isUuid(id) ? await findProduct(db, storeId, id) : undefined;
  if (!row) throw notFound('product', id);
  return row;
}

/** What a product holds for each optional field it was created without (`ativo` defaults to true). */
const CREATION_DEFAULTS = {
  descricao: null,
  imagem: null,
  ativo: 1,
  checkout_id: null,
  link_acesso: null,
  garantia: null,
  order_bump_enabled: 0,
  order_bump_product_id: null,
  order_bump_title: null,
  order_bump_description: null,
  delivery_email_subject: null,
  delivery_email_body: null,
  recorrencia: null,
  retry_policy: '3_in_7_days',
} satisfies Partial<ProductsTable>;

/**
 * A subscription's every cycle is a Pix Automático charge, which cannot be of R$ 0,00: a recurring
 * product needs a price. Checked on the product as it would be stored, so a PATCH of either field counts.
 */
function checkRecurringPrice(product: Pick<ProductsTable, 'preco_cents' | 'recorrencia'>): void {
  if (product.recorrencia !== null && product.preco_cents === 0) {
    throw invalidRequest('A recurring product (recorrencia set) needs a preco of at least 0.01.', 'preco');
  }
}

/** The API fields sent, as the columns that store them. */
function toColumns(fields: UpdateProductBody): Partial<ProductsTable> {
  const { preco, ativo, order_bump_enabled, ...stored } = fields;
  return {
    ...stored,
    ...(preco === undefined ? {} : { preco_cents: toCents(preco) }),
    ...(ativo === undefined ? {} : { ativo: fromBool(ativo) }),
    ...(order_bump_enabled === undefined ? {} : { order_bump_enabled: fromBool(order_bump_enabled) }),
  };
}

/**
 * `keep` stores the API's answer in the same transaction (an Idempotency-Key), see `sendCreation`.
 * Here and below, `onWrite` (the change's audit entry) runs in the change's transaction, only when
 * something changed.
 */
export async function createProduct(
  db: Kysely<Database>,
  ctx: WriteContext,
  body: CreateProductBody,
  keep?: KeepAnswer,
  onWrite?: OnWrite<Product>,
): Promise<Product> {
  const { storeId, livemode } = ctx;
  return retryOnUniqueViolation(CREATE_ATTEMPTS, () =>
    db.transaction().execute(async (trx) => {
      await checkStoreRules(trx, storeId, body, null);
      const now = nowIso();
      const row: ProductsTable = {
        ...CREATION_DEFAULTS,
        nome: body.nome,
        preco_cents: toCents(body.preco),
        ...toColumns(body),
        id: newUuid(),
        store_id: storeId,
        codigo: newProductCode(),
        slug: body.slug ?? (await freeSlug(trx, storeId, slugify(body.nome))),
        created_at: now,
        updated_at: now,
      };
      checkRecurringPrice(row);
      await insertProduct(trx, row);
      const object = toProduct(row);
      await recordEvent(trx, { storeId, type: 'product.created', livemode, object });
      await onWrite?.(trx, object);
      await keep?.(trx, object);
      return object;
    }),
  );
}

/**
 * Changes only the fields sent. When nothing stored actually changes (an empty body, or the values it
 * already has) the product is returned as it is and no `product.updated` event is written.
 */
export async function editProduct(
  db: Kysely<Database>,
  ctx: WriteContext,
  id: string,
  body: UpdateProductBody,
  onWrite?: OnWrite<Product>,
): Promise<Product> {
  const { storeId, livemode } = ctx;
  try {
    return await db.transaction().execute(async (trx) => {
      const row = await productOr404(trx, storeId, id);
      await checkStoreRules(trx, storeId, body, row.id);
      const changes = Object.fromEntries(
        Object.entries(toColumns(body)).filter(
          ([column, value]) => row[column as keyof ProductsTable] !== value,
        ),
      ) as Partial<ProductsTable>;
      if (Object.keys(changes).length === 0) return toProduct(row);
      checkRecurringPrice({ ...row, ...changes });
      const object = toProduct(await updateProduct(trx, row, changes));
      await recordEvent(trx, { storeId, type: 'product.updated', livemode, object });
      await onWrite?.(trx, object);
      return object;
    });
  } catch (error) {
    // The slug is the only unique column a PATCH can set: a concurrent writer took it after our check.
    if (isUniqueViolation(error))
      throw invalidRequest(`Another product of this store already uses this slug.`, 'slug');
    throw error;
  }
}

/** Sets `ativo` to false, once: archiving an inactive product answers the same and writes no event. */
export function archiveProduct(
  db: Kysely<Database>,
  ctx: WriteContext,
  id: string,
  onWrite?: OnWrite<Product>,
): Promise<Product> {
  const { storeId, livemode } = ctx;
  return db.transaction().execute(async (trx) => {
    const row = await productOr404(trx, storeId, id);
    const archived = await markInactive(trx, row);
    if (!archived) return toProduct({ ...row, ativo: 0 });
    const object = toProduct(archived);
    await recordEvent(trx, { storeId, type: 'product.archived', livemode, object });
    await onWrite?.(trx, object);
    return object;
  });
}
