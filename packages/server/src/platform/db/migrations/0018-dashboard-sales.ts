import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { jsonFieldSql } from '../json-fields.js';

/**
 * The dashboard's Vendas list, filters and sale page, at 100,000 sales a store:
 * - listings by status and by product keep the newest-first keyset order inside an index;
 * - the search "Buscar" finds a customer's exact e-mail or CPF/CNPJ through indexes on those JSON
 *   fields (a name is a substring match, walked newest first and stopped at a page);
 * - a sale's page finds its events and its charge's by the id inside the event's JSON.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('sales_status_listing')
    .on('sales')
    .columns(['store_id', 'livemode', 'status', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('sales_product_listing')
    .on('sales')
    .columns(['store_id', 'livemode', 'product_id', 'created_at', 'id'])
    .execute();
  const expressionIndex = (name: string, table: string, expression: string) =>
    sql`create index ${sql.id(name)} on ${sql.id(table)} (store_id, (${sql.raw(expression)}))`.execute(db);
  await expressionIndex('sales_customer_email', 'sales', jsonFieldSql(db, 'customerEmail'));
  await expressionIndex('sales_customer_document', 'sales', jsonFieldSql(db, 'customerDocument'));
  await expressionIndex('events_object', 'events', jsonFieldSql(db, 'eventObjectId'));
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of [
    'events_object',
    'sales_customer_document',
    'sales_customer_email',
    'sales_product_listing',
    'sales_status_listing',
  ])
    await db.schema.dropIndex(name).execute();
}
