import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('codigo', 'text', (c) => c.notNull())
    .addColumn('nome', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('descricao', 'text')
    .addColumn('imagem', 'text')
    .addColumn('preco_cents', 'integer', (c) => c.notNull())
    .addColumn('ativo', 'integer', (c) => c.notNull())
    .addColumn('checkout_id', 'text', (c) => c.references('checkouts.id'))
    .addColumn('link_acesso', 'text')
    .addColumn('garantia', 'text')
    .addColumn('order_bump_enabled', 'integer', (c) => c.notNull())
    .addColumn('order_bump_product_id', 'text', (c) => c.references('products.id'))
    .addColumn('order_bump_title', 'text')
    .addColumn('order_bump_description', 'text')
    .addColumn('delivery_email_subject', 'text')
    .addColumn('delivery_email_body', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('products_store_listing')
    .on('products')
    .columns(['store_id', 'created_at', 'id'])
    .execute();
  // Uniqueness per store is held by the database, so concurrent creations cannot both win.
  await db.schema
    .createIndex('products_store_codigo')
    .on('products')
    .columns(['store_id', 'codigo'])
    .unique()
    .execute();
  await db.schema
    .createIndex('products_store_slug')
    .on('products')
    .columns(['store_id', 'slug'])
    .unique()
    .execute();
  // Archiving a checkout unlinks its products.
  await db.schema
    .createIndex('products_store_checkout')
    .on('products')
    .columns(['store_id', 'checkout_id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('products').execute();
}
