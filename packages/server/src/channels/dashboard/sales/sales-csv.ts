import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { csvField } from './csv-field.js';
import type { CsvFormat } from './sales-csv-formats.js';
import { filteredSales } from './sales-filter.js';
import type { ListedSale, SaleCursor, SalesQuery, SalesScope } from './sales-filter.js';

/** Rows read from the database per query: the export's memory is one batch, whatever the total. */
export const CSV_BATCH = 200;

/**
 * Every sale of the filter as CSV in `format`, read in keyset batches. The stream pulls the next batch
 * only when the reply has taken the last one (backpressure), so a slow download never piles rows up in
 * memory.
 */
export function salesCsv(
  db: Kysely<Database>,
  scope: SalesScope,
  query: SalesQuery,
  format: CsvFormat,
): Readable {
  const line = (fields: readonly (string | null | undefined)[]) =>
    `${fields.map(csvField).join(format.separator)}\r\n`;
  async function* lines() {
    yield `${format.prefix}${line(format.header)}`;
    let cursor: SaleCursor | null = null;
    for (;;) {
      const rows: ListedSale[] = await filteredSales(db, scope, query, cursor, CSV_BATCH);
      if (rows.length > 0) yield rows.map((sale) => line(format.fields(sale, scope.timeZone))).join('');
      if (rows.length < CSV_BATCH) return;
      const last = rows[rows.length - 1]!;
      cursor = { created_at: last.created_at, id: last.id };
    }
  }
  return Readable.from(lines(), { objectMode: false });
}
