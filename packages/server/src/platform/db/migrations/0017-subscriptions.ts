import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Subscriptions through Pix Automático: a product's recurrence and retry policy, the subscriptions
 * and each cycle's charge (cobr), and what a sale learns from the subscription it bills.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('products').addColumn('recorrencia', 'text').execute();
  await db.schema
    .alterTable('products')
    .addColumn('retry_policy', 'text', (c) => c.notNull().defaultTo('3_in_7_days'))
    .execute();

  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('product_id', 'text', (c) => c.notNull())
    .addColumn('customer', 'text', (c) => c.notNull())
    .addColumn('tracking', 'text')
    // Copied from the product at creation: later product edits do not change a subscription.
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('recorrencia', 'text', (c) => c.notNull())
    .addColumn('retry_policy', 'text', (c) => c.notNull())
    // The first period's first day: every period's bounds are counted from it (no month-end drift).
    .addColumn('anchor_date', 'text')
    // Paid cycles so far (0 while pending).
    .addColumn('cycle', 'integer', (c) => c.notNull())
    .addColumn('current_period_start', 'text')
    .addColumn('current_period_end', 'text')
    .addColumn('next_charge_date', 'text')
    .addColumn('cancel_reason', 'text')
    .addColumn('canceled_at', 'text')
    .addColumn('order_id', 'text')
    .addColumn('first_charge_id', 'text', (c) => c.notNull().unique())
    .addColumn('id_rec', 'text')
    // The scheduler's next day of work on this subscription (YYYY-MM-DD), null when it waits for
    // an outcome; `claimed_until` leases it to one scheduler at a time.
    .addColumn('next_action_date', 'text')
    .addColumn('claimed_until', 'text')
    // Live only: when the reconciler next reads the authorisation (GET /rec) at the PSP.
    .addColumn('next_check_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('subscriptions_store_listing')
    .on('subscriptions')
    .columns(['store_id', 'livemode', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('subscriptions_next_action')
    .on('subscriptions')
    .column('next_action_date')
    .where(sql.ref('next_action_date'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('subscriptions_pending')
    .on('subscriptions')
    .columns(['status', 'created_at'])
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('subscriptions_id_rec')
    .on('subscriptions')
    .columns(['store_id', 'id_rec'])
    .execute();

  await db.schema
    .createTable('subscription_cycles')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id'))
    .addColumn('cycle', 'integer', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('due_date', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    // sending → scheduled (the PSP holds the cobr) → paid | failed (no retries left) | canceled.
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('failed_attempts', 'integer', (c) => c.notNull())
    .addColumn('retries_requested', 'integer', (c) => c.notNull())
    .addColumn('sale_id', 'text')
    // Live only: when the reconciler next reads the cobr (GET /cobr/{txid}) at the PSP.
    .addColumn('next_check_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('paid_at', 'text')
    .execute();
  // One charge per cycle of a subscription, whatever number of schedulers race for it.
  await db.schema
    .createIndex('subscription_cycles_once')
    .on('subscription_cycles')
    .columns(['subscription_id', 'cycle'])
    .unique()
    .execute();
  await db.schema
    .createIndex('subscription_cycles_txid')
    .on('subscription_cycles')
    .columns(['store_id', 'txid'])
    .unique()
    .execute();
  await db.schema
    .createIndex('subscription_cycles_next_check')
    .on('subscription_cycles')
    .column('next_check_at')
    .execute();

  await db.schema.alterTable('sales').addColumn('subscription_id', 'text').execute();
  await db.schema.alterTable('sales').addColumn('cycle', 'integer').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sales').dropColumn('cycle').execute();
  await db.schema.alterTable('sales').dropColumn('subscription_id').execute();
  await db.schema.dropTable('subscription_cycles').execute();
  await db.schema.dropTable('subscriptions').execute();
  await db.schema.alterTable('products').dropColumn('retry_policy').execute();
  await db.schema.alterTable('products').dropColumn('recorrencia').execute();
}
