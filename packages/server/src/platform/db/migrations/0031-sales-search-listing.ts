import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { JsonField } from '../json-fields.js';
import { jsonFieldSql } from '../json-fields.js';

/**
 * The dashboard's search by e-mail and by CPF/CNPJ at 1,000,000 sales a store. The indexes of
 * migration 0018 held (store, field): the search, which also names the mode and lists newest first,
 * found a rival in the listing index (store, mode, created_at, id), which needs no sort, and SQLite,
 * which keeps no statistics, took that one and read every sale of the store (about a second at a
 * million). With the mode ahead of the field and the keyset order after it, the search reads its
 * matches in order from one index on either database.
 */
const SEARCHES: readonly [name: string, field: JsonField][] = [
  ['sales_customer_email', 'customerEmail'],
  ['sales_customer_document', 'customerDocument'],
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [name, field] of SEARCHES) {
    await db.schema.dropIndex(name).execute();
    await sql`create index ${sql.id(name)} on sales (store_id, livemode, (${sql.raw(jsonFieldSql(db, field))}), created_at, id)`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const [name, field] of SEARCHES) {
    await db.schema.dropIndex(name).execute();
    await sql`create index ${sql.id(name)} on sales (store_id, (${sql.raw(jsonFieldSql(db, field))}))`.execute(
      db,
    );
  }
}
