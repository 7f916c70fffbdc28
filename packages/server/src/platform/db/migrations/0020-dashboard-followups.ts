import type { Kysely } from 'kysely';

/**
 * Início reads its figures from the analytics daily totals (one row a day) instead of summing sales:
 * the index that served that sum, `sales_period_figures` (migration 0014), is no longer read by any
 * query and only slowed every sale's write.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('sales_period_figures').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('sales_period_figures')
    .on('sales')
    .columns(['store_id', 'livemode', 'status', 'created_at', 'amount_cents'])
    .execute();
}
