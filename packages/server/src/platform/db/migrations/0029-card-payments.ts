import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Card payments (API 1.3.0): each store's card PSP per mode, the payments themselves, the PSP
 * notifications as they arrived, the store's installment policy, and what a sale and an order learn
 * from a card.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('card_providers')
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    // The access token (Mercado Pago) or secret key (Pagar.me), sealed with the row it belongs to.
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('webhook_secret_sealed', 'text')
    .addColumn('base_url', 'text', (c) => c.notNull())
    .addColumn('ca_pem', 'text')
    // The notification URL's token: sealed so `show` can print it whole, hashed so a callback finds it.
    .addColumn('callback_token_sealed', 'text', (c) => c.notNull())
    .addColumn('callback_token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('card_providers_pk', ['store_id', 'livemode'])
    .execute();

  await db.schema
    .createTable('card_payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('installments', 'integer', (c) => c.notNull())
    .addColumn('installment_amount_cents', 'integer', (c) => c.notNull())
    .addColumn('total_amount_cents', 'integer', (c) => c.notNull())
    .addColumn('card_brand', 'text')
    .addColumn('card_last4', 'text')
    .addColumn('card_exp_month', 'integer')
    .addColumn('card_exp_year', 'integer')
    .addColumn('customer', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('external_id', 'text')
    .addColumn('metadata', 'text')
    .addColumn('tracking', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text')
    .addColumn('order_id', 'text')
    .addColumn('decline_code', 'text')
    .addColumn('decline_provider_code', 'text')
    // Mercado Pago's `three_ds_info` (JSON {url, creq}) while a challenge waits; internal.
    .addColumn('challenge', 'text')
    // While 3-D Secure waits: the page the buyer authenticates on (`next_action.url`), found by the
    // SHA-256 of the random token in its path.
    .addColumn('next_action_url', 'text')
    .addColumn('action_token_hash', 'text', (c) => c.unique())
    .addColumn('provider_payment_id', 'text')
    .addColumn('provider_charge_id', 'text')
    .addColumn('authorization_code', 'text')
    .addColumn('sale_id', 'text')
    // Live only: when the reconciler next reads a processing or requires_action payment at its PSP.
    .addColumn('next_check_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('approved_at', 'text')
    .addColumn('declined_at', 'text')
    .addColumn('refunded_at', 'text')
    .execute();
  await db.schema
    .createIndex('card_payments_store_listing')
    .on('card_payments')
    .columns(['store_id', 'livemode', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('card_payments_external_id')
    .on('card_payments')
    .columns(['store_id', 'livemode', 'external_id'])
    .unique()
    .where(sql.ref('external_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('card_payments_provider_id')
    .on('card_payments')
    .columns(['provider', 'provider_payment_id'])
    .execute();
  await db.schema
    .createIndex('card_payments_next_check')
    .on('card_payments')
    .column('next_check_at')
    .where(sql.ref('next_check_at'), 'is not', null)
    .execute();
  await db.schema.createIndex('card_payments_order').on('card_payments').column('order_id').execute();

  await db.schema
    .createTable('card_notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('provider_payment_id', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    // `processed`, `ignored` (names no payment of ours), `forged` (signature refused), `failed`.
    .addColumn('outcome', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addColumn('processed_at', 'text')
    .execute();
  await db.schema
    .createIndex('card_notifications_store')
    .on('card_notifications')
    .columns(['store_id', 'received_at'])
    .execute();

  for (const [column, value] of [
    ['card_max_installments', 12],
    ['card_interest_free_installments', 1],
    // Basis points a month (2.99 % → 299), so the rate is exact in both databases.
    ['card_monthly_interest_bp', 299],
    ['card_min_installment_cents', 500],
  ] as const) {
    await db.schema
      .alterTable('stores')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(value))
      .execute();
  }

  await db.schema.alterTable('sales').addColumn('card_payment_id', 'text').execute();
  await db.schema.alterTable('sales').addColumn('installments', 'integer').execute();
  await db.schema.alterTable('sales').addColumn('charged_back_at', 'text').execute();
  await db.schema.alterTable('orders').addColumn('card_payment_id', 'text').execute();
  await db.schema.alterTable('orders').addColumn('payment_method', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('orders').dropColumn('payment_method').execute();
  await db.schema.alterTable('orders').dropColumn('card_payment_id').execute();
  for (const column of ['charged_back_at', 'installments', 'card_payment_id'])
    await db.schema.alterTable('sales').dropColumn(column).execute();
  for (const column of [
    'card_min_installment_cents',
    'card_monthly_interest_bp',
    'card_interest_free_installments',
    'card_max_installments',
  ])
    await db.schema.alterTable('stores').dropColumn(column).execute();
  await db.schema.dropTable('card_notifications').execute();
  await db.schema.dropTable('card_payments').execute();
  await db.schema.dropTable('card_providers').execute();
}
