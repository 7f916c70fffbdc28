import { sql } from 'kysely';
import type { Kysely } from 'kysely';

/**
 * Indexes of columns that most rows leave null now hold only the rows with a value: a Pix charge's
 * `external_id` (the page's charges and many API ones have none) and `next_check_at` (live charges
 * only), a sale's `refund_next_check_at` (a refund being read back) and an order's `sale_id` (set once
 * paid). Every query that uses them compares the column with a value or asks for `is not null`, which
 * both databases read as "not null", so the plans are the same. Each insert no longer writes a null
 * entry into these indexes: a page purchase wrote ~61 pages of SQLite's WAL, ~56 after.
 */
const INDEXES: ReadonlyArray<{ name: string; table: string; columns: string[]; unique?: true }> = [
  {
    name: 'pix_charges_external_id',
    table: 'pix_charges',
    columns: ['store_id', 'livemode', 'external_id'],
    unique: true,
  },
  { name: 'pix_charges_next_check', table: 'pix_charges', columns: ['next_check_at'] },
  { name: 'sales_refund_next_check', table: 'sales', columns: ['refund_next_check_at'] },
  { name: 'orders_sale', table: 'orders', columns: ['store_id', 'sale_id'] },
];

/** The column the index's rows are chosen by: its last. */
const nullable = (columns: string[]) => columns[columns.length - 1]!;

/** The index as it was before this migration: every row, nulls included. */
function indexOfEveryRow(db: Kysely<unknown>, { name, table, columns, unique }: (typeof INDEXES)[number]) {
  const index = db.schema.createIndex(name).on(table).columns(columns);
  return unique ? index.unique() : index;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) {
    await db.schema.dropIndex(index.name).execute();
    await indexOfEveryRow(db, index)
      .where(sql.ref(nullable(index.columns)), 'is not', null)
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of INDEXES) {
    await db.schema.dropIndex(index.name).execute();
    await indexOfEveryRow(db, index).execute();
  }
}
