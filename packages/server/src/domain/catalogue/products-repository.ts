import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { reusedInsert, reusedQuery } from '../../platform/db/reused-query.js';
import type { Database } from '../../platform/db/schema.js';
import type { ProductsTable } from './product-object.js';

const selectProduct = reusedQuery('select product', (db: Kysely<Database>, storeId: string, id: string) =>
  db.selectFrom('products').selectAll().where('store_id', '=', storeId).where('id', '=', id),
);

/** Every query here is scoped by store: another store's product simply does not exist. */
export async function findProduct(
  db: Kysely<Database>,
  storeId: string,
  id: string,
): Promise<ProductsTable | undefined> {
  return (await selectProduct(db, storeId, id)).rows[0];
}

/** The store's products among these ids or codes (the code people read in the dashboard). */
export async function productsBy(
  db: Kysely<Database>,
  storeId: string,
  key: 'id' | 'codigo',
  values: string[],
): Promise<Pick<ProductsTable, 'id' | 'codigo' | 'nome'>[]> {
  if (values.length === 0) return [];
  return db
    .selectFrom('products')
    .select(['id', 'codigo', 'nome'])
    .where('store_id', '=', storeId)
    .where(key, 'in', values)
    .execute();
}

/**
 * The store's active products (all of them, or only these ids) counted by the checkout they name:
 * `one_time` can show a coupon field, `recurring` never does (a subscription takes no coupon).
 */
export async function activeProductsByCheckout(
  db: Kysely<Database>,
  storeId: string,
  ids: string[],
): Promise<{ checkout_id: string | null; one_time: number; recurring: number }[]> {
  let query = db
    .selectFrom('products')
    .select([
      'checkout_id',
      sql<number>`sum(case when recorrencia is null then 1 else 0 end)`.as('one_time'),
      sql<number>`sum(case when recorrencia is null then 0 else 1 end)`.as('recurring'),
    ])
    .where('store_id', '=', storeId)
    .where('ativo', '=', 1)
    .groupBy('checkout_id');
  if (ids.length > 0) query = query.where('id', 'in', ids);
  // PostgreSQL's sum is a bigint, read as a string.
  return (await query.execute()).map((row) => ({
    checkout_id: row.checkout_id,
    one_time: Number(row.one_time),
    recurring: Number(row.recurring),
  }));
}

export interface ProductFilters {
  ativo?: boolean | undefined;
  codigo?: string | undefined;
  slug?: string | undefined;
}

export function listProductsQuery(db: Kysely<Database>, storeId: string, filters: ProductFilters) {
  let query = db.selectFrom('products').selectAll().where('store_id', '=', storeId);
  if (filters.ativo !== undefined) query = query.where('ativo', '=', filters.ativo ? 1 : 0);
  if (filters.codigo !== undefined) query = query.where('codigo', '=', filters.codigo);
  if (filters.slug !== undefined) query = query.where('slug', '=', filters.slug);
  return query;
}

const selectActiveBySlug = reusedQuery(
  'select active product by slug',
  (db: Kysely<Database>, storeId: string, slug: string) =>
    db
      .selectFrom('products')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('slug', '=', slug)
      .where('ativo', '=', 1),
);

/** The store's active product at this slug (its purchase page's address). */
export async function findActiveProductBySlug(
  db: Kysely<Database>,
  storeId: string,
  slug: string,
): Promise<ProductsTable | undefined> {
  return (await selectActiveBySlug(db, storeId, slug)).rows[0];
}

const selectSlug = reusedQuery('select slug', (db: Kysely<Database>, storeId: string, slug: string) =>
  db.selectFrom('products').select('slug').where('store_id', '=', storeId).where('slug', '=', slug),
);

/** Whether the store already uses this slug. */
export async function slugTaken(db: Kysely<Database>, storeId: string, slug: string): Promise<boolean> {
  return (await selectSlug(db, storeId, slug)).rows.length > 0;
}

/** Which of these slugs the store already uses (optionally not counting one product). */
export async function takenSlugs(
  db: Kysely<Database>,
  storeId: string,
  slugs: string[],
  exceptId?: string,
): Promise<Set<string>> {
  let query = db
    .selectFrom('products')
    .select('slug')
    .where('store_id', '=', storeId)
    .where('slug', 'in', slugs);
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  const rows = await query.execute();
  return new Set(rows.map((row) => row.slug));
}

const insertProductRow = reusedInsert('insert product', (db: Kysely<Database>, row: ProductsTable) =>
  db.insertInto('products').values(row),
);

export async function insertProduct(db: Kysely<Database>, row: ProductsTable): Promise<void> {
  await insertProductRow(db, row);
}

/** Applies a change; `updated_at` stays as it is (it equals `created_at`). */
export async function updateProduct(
  db: Kysely<Database>,
  row: ProductsTable,
  changes: Partial<ProductsTable>,
): Promise<ProductsTable> {
  await db
    .updateTable('products')
    .set(changes)
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .execute();
  return { ...row, ...changes };
}

/** Archives once: returns the archived row, or null when it already was inactive (so no second event). */
export async function markInactive(db: Kysely<Database>, row: ProductsTable): Promise<ProductsTable | null> {
  const result = await db
    .updateTable('products')
    .set({ ativo: 0 })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .where('ativo', '=', 1)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n ? { ...row, ativo: 0 } : null;
}

/** Unlinks every product using a checkout (they fall back to the default one); returns them as now stored. */
export function unlinkCheckout(
  db: Kysely<Database>,
  storeId: string,
  checkoutId: string,
): Promise<ProductsTable[]> {
  return db
    .updateTable('products')
    .set({ checkout_id: null })
    .where('store_id', '=', storeId)
    .where('checkout_id', '=', checkoutId)
    .returningAll()
    .execute();
}
