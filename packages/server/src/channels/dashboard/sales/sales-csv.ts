import { Readable } from 'node:stream';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { parseTracking } from '../../../domain/kernel/tracking.js';
import type { Customer } from '../../../domain/kernel/customer.js';
import type { SaleCoupon } from '../../../domain/kernel/line-items.js';
import { filteredSales } from './sales-filter.js';
import type { ListedSale, SaleCursor, SalesQuery, SalesScope } from './sales-filter.js';

export const CSV_HEADER =
  'id,created_at,status,amount,payment_method,product,customer_name,customer_email,customer_document,coupon,utm_source,utm_campaign';

/** Rows read from the database per query: the export's memory is one batch, whatever the total. */
export const CSV_BATCH = 200;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled. A
 * field a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage
 * return) gets a leading apostrophe first, so opening the export never runs what a customer typed.
 */
export function csvField(value: string | null | undefined): string {
  let text = value ?? '';
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Cents as `1234.56`. */
const decimalAmount = (cents: number) => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

function csvLine(sale: ListedSale): string {
  const customer = sale.customer === null ? null : (JSON.parse(sale.customer) as Customer);
  const coupon = sale.coupon === null ? null : (JSON.parse(sale.coupon) as SaleCoupon);
  const tracking = parseTracking(sale.tracking);
  return `${[
    sale.id,
    sale.created_at,
    sale.status,
    decimalAmount(sale.amount_cents),
    sale.payment_method,
    sale.product_name,
    customer?.name,
    customer?.email,
    customer?.document,
    coupon?.code,
    tracking.utm_source,
    tracking.utm_campaign,
  ]
    .map(csvField)
    .join(',')}\r\n`;
}

/**
 * Every sale of the filter as CSV, read in keyset batches. The stream pulls the next batch only when
 * the reply has taken the last one (backpressure), so a slow download never piles rows up in memory.
 */
export function salesCsv(db: Kysely<Database>, scope: SalesScope, query: SalesQuery): Readable {
  async function* lines() {
    yield `${CSV_HEADER}\r\n`;
    let cursor: SaleCursor | null = null;
    for (;;) {
      const rows: ListedSale[] = await filteredSales(db, scope, query, cursor, CSV_BATCH);
      if (rows.length > 0) yield rows.map(csvLine).join('');
      if (rows.length < CSV_BATCH) return;
      const last = rows[rows.length - 1]!;
      cursor = { created_at: last.created_at, id: last.id };
    }
  }
  return Readable.from(lines(), { objectMode: false });
}
