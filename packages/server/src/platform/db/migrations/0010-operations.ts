import type { Kysely } from 'kysely';

/**
 * Operations: webhook secret rotation and retention.
 *
 * - A rotated endpoint keeps its previous secret, sealed like the current one, until
 *   `previous_secret_expires_at`; both sign until then.
 * - Retention deletes events by age, oldest first, and keeps any event a queued job or a kept attempt
 *   still points at: these indexes make each bounded batch an index range plus two lookups per row
 *   instead of table scans.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_sealed', 'text').execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('previous_secret_expires_at', 'text').execute();
  await db.schema.createIndex('events_created_at').on('events').column('created_at').execute();
  await db.schema.createIndex('webhook_jobs_event').on('webhook_jobs').column('event_id').execute();
  await db.schema
    .createIndex('webhook_deliveries_event')
    .on('webhook_deliveries')
    .column('event_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('webhook_deliveries_event').execute();
  await db.schema.dropIndex('webhook_jobs_event').execute();
  await db.schema.dropIndex('events_created_at').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret_expires_at').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('previous_secret_sealed').execute();
}
