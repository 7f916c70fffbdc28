import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Webhook endpoints, the delivery queue and the attempt history.
 *
 * No foreign keys from deliveries or jobs to endpoints: the history outlives its endpoint,
 * and endpoints are soft-deleted (`deleted_at`) so `GET /webhooks/{id}/deliveries` can still tell a
 * deleted endpoint of this store from an id that never existed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull().references('stores.id'))
    .addColumn('livemode', 'integer', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    // Start of the current run of failed attempts (null after any success): drives auto-disable.
    .addColumn('failing_since', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_store_listing')
    .on('webhook_endpoints')
    .columns(['store_id', 'livemode', 'created_at', 'id'])
    .execute();

  // Fan-out marker: an event is handed to the endpoints subscribed at the time it is dispatched.
  await db.schema.alterTable('events').addColumn('dispatched_at', 'text').execute();
  await db.schema
    .createIndex('events_undispatched')
    .on('events')
    .column('created_at')
    .where(sql.ref('dispatched_at'), 'is', null)
    .execute();

  // One row per (endpoint, event) still to be attempted. `next_attempt_at` doubles as the lease:
  // claiming moves it past the attempt's timeout, so a crashed worker's job simply becomes due again.
  await db.schema
    .createTable('webhook_jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('manual', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_jobs_due').on('webhook_jobs').column('next_attempt_at').execute();
  await db.schema
    .createIndex('webhook_jobs_endpoint_event')
    .on('webhook_jobs')
    .columns(['endpoint_id', 'event_id'])
    .unique()
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('store_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('delivered_at', 'text')
    .addColumn('failed_at', 'text')
    .addColumn('next_retry_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_endpoint_listing')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_deliveries').execute();
  await db.schema.dropTable('webhook_jobs').execute();
  await db.schema.dropIndex('events_undispatched').execute();
  await db.schema.alterTable('events').dropColumn('dispatched_at').execute();
  await db.schema.dropTable('webhook_endpoints').execute();
}
