import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { invalidRequest } from '../../platform/http/api-error.js';
import { fromCents } from '../../platform/values/money.js';
import { ALL_PRODUCTS, COUNTERS } from './daily-totals.js';
import type { Counter } from './daily-totals.js';
import { MAX_SUMMARY_DAYS } from './analytics-object.js';
import type { AnalyticsDay, AnalyticsSummary } from './analytics-object.js';

export interface SummaryQuery {
  storeId: string;
  livemode: boolean;
  /** Local dates, YYYY-MM-DD (valid dates: the caller checked their form), both included. */
  from: string;
  to: string;
  productId?: string | undefined;
}

const DAY_MS = 86_400_000;

/**
 * Each date from `from` to `to`, both included (calendar dates: no time zone involved); a range
 * backwards or longer than MAX_SUMMARY_DAYS is refused, naming `to`.
 */
function datesBetween(from: string, to: string): string[] {
  const first = Date.parse(`${from}T00:00:00Z`);
  const count = (Date.parse(`${to}T00:00:00Z`) - first) / DAY_MS + 1;
  if (count < 1) throw invalidRequest(`\`to\` (${to}) must be on or after \`from\` (${from}).`, 'to');
  if (count > MAX_SUMMARY_DAYS) {
    throw invalidRequest(
      `A summary covers at most ${MAX_SUMMARY_DAYS} days; ${from} to ${to} is ${count} days.`,
      'to',
    );
  }
  return Array.from({ length: count }, (_, i) => new Date(first + i * DAY_MS).toISOString().slice(0, 10));
}

type Totals = Record<Counter, number>;

const zero = (): Totals => Object.fromEntries(COUNTERS.map((counter) => [counter, 0])) as Totals;

function figures(totals: Totals): Omit<AnalyticsDay, 'date'> {
  return {
    page_views: totals.page_views,
    orders: totals.orders,
    paid_orders: totals.paid_orders,
    sales: totals.sales,
    gross_amount: fromCents(totals.gross_cents),
    refunded_amount: fromCents(totals.refunded_cents),
    net_amount: fromCents(totals.gross_cents - totals.refunded_cents),
  };
}

/**
 * A store's figures of one mode per local day, every day of the range present: read from the daily
 * totals (one row a day), never from the sales. The API's `GET /analytics/summary`
 * and any other screen call this one function; a bad range throws the API's 400.
 */
export async function analyticsSummary(db: Kysely<Database>, query: SummaryQuery): Promise<AnalyticsSummary> {
  const dates = datesBetween(query.from, query.to);
  const rows = await db
    .selectFrom('analytics_daily')
    .select((eb) => ['day', ...COUNTERS.map((c) => eb.fn.sum<number | string>(c).as(c))])
    .where('store_id', '=', query.storeId)
    .where('livemode', '=', query.livemode ? 1 : 0)
    .where('day', '>=', query.from)
    .where('day', '<=', query.to)
    // The product's rows, or those that sum the store's day: each day's slots added up.
    .where('product_id', '=', query.productId ?? ALL_PRODUCTS)
    .groupBy('day')
    .execute();

  const byDay = new Map<string, Totals>();
  for (const row of rows) {
    byDay.set(row.day, Object.fromEntries(COUNTERS.map((c) => [c, Number(row[c])])) as Totals);
  }
  const total = zero();
  const days = dates.map((date) => {
    const day = byDay.get(date) ?? zero();
    for (const counter of COUNTERS) total[counter] += day[counter];
    return { date, ...figures(day) };
  });
  return {
    object: 'analytics_summary',
    from: query.from,
    to: query.to,
    ...figures(total),
    by_method: {
      pix: { sales: total.pix_sales, gross_amount: fromCents(total.pix_gross_cents) },
      card: { sales: total.card_sales, gross_amount: fromCents(total.card_gross_cents) },
    },
    conversion_rate:
      total.page_views === 0 ? null : Math.round((total.paid_orders / total.page_views) * 10_000) / 10_000,
    days,
  };
}
