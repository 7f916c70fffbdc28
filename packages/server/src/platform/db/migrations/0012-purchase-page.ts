import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { handleCandidate, handleFromName } from '../../values/handle.js';

/**
 * The hosted purchase page: a store's public handle and checkout mode, coupons, the orders buyers
 * place on the page, and what a sale learns from its order (items, coupon).
 */
interface StoreRows {
  stores: { id: string; name: string; handle: string | null; created_at: string };
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('stores').addColumn('handle', 'text').execute();
  await db.schema
    .alterTable('stores')
    .addColumn('checkout_mode', 'text', (c) => c.notNull().defaultTo('test'))
    .execute();
  // Stores made before this migration get a handle from their name, like new ones.
  const rows = db as unknown as Kysely<StoreRows>;
  const stores = await rows.selectFrom('stores').select(['id', 'name']).orderBy('created_at').execute();
  const taken = new Set<string>();
  for (const store of stores) {
    const base = handleFromName(store.name);
    let n = 1;
    while (taken.has(handleCandidate(base, n))) n++;
    const handle = handleCandidate(base, n);
    taken.add(handle);
    await rows.updateTable('stores').set({ handle }).where('id', '=', store.id).execute();
  }
  await db.schema.createIndex('stores_handle').on('stores').column('handle').unique().execute();

  await db.schema
    .createTable('coupons')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('code', 'text', (c) => c.notNull())
    // Upper-cased code: uniqueness per store is case-insensitive and held by the database.
    .addColumn('code_key', 'text', (c) => c.notNull())
    .addColumn('percent_off', 'integer')
    .addColumn('amount_off_cents', 'integer')
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('max_redemptions', 'integer')
    .addColumn('times_redeemed', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addColumn('product_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('coupons_store_listing')
    .on('coupons')
    .columns(['store_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('coupons_store_code')
    .on('coupons')
    .columns(['store_id', 'code_key'])
    .unique()
    .execute();

  await db.schema
    .createTable('orders')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    // SHA-256 of the 128-bit token in the order page's URL: the token itself is never stored.
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('items', 'text', (c) => c.notNull())
    .addColumn('coupon_id', 'text')
    .addColumn('coupon', 'text')
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('customer', 'text', (c) => c.notNull())
    .addColumn('pix_charge_id', 'text', (c) => c.unique())
    // Until when a pending order holds one of its coupon's redemptions (its charge's expiry).
    .addColumn('hold_until', 'text', (c) => c.notNull())
    .addColumn('sale_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('orders_coupon_holds')
    .on('orders')
    .columns(['coupon_id', 'status', 'hold_until'])
    .where(sql.ref('coupon_id'), 'is not', null)
    .execute();

  await db.schema.alterTable('sales').addColumn('items', 'text').execute();
  await db.schema.alterTable('sales').addColumn('coupon', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sales').dropColumn('coupon').execute();
  await db.schema.alterTable('sales').dropColumn('items').execute();
  await db.schema.dropTable('orders').execute();
  await db.schema.dropTable('coupons').execute();
  await db.schema.dropIndex('stores_handle').execute();
  await db.schema.alterTable('stores').dropColumn('checkout_mode').execute();
  await db.schema.alterTable('stores').dropColumn('handle').execute();
}
