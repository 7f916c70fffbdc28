import type { Kysely } from 'kysely';

/**
 * The dashboard's Produtos list, at 100,000 products a store: active and archived products are
 * listed apart, newest first, 50 at a time. With the activity in the index ahead of the keyset
 * order, either list reads its page straight from the index, however few products it holds among
 * the store's (the store-wide index alone would walk past every product of the other kind).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('products_active_listing')
    .on('products')
    .columns(['store_id', 'ativo', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('products_active_listing').execute();
}
