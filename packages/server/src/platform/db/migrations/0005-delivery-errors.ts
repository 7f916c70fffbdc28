import type { Kysely } from 'kysely';

/** Why a delivery attempt failed, in words a merchant can act on (webhooks/delivery/failure-reason.ts). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('error', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').dropColumn('error').execute();
}
