import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.js';
import { fromBool } from '../../../db/schema.js';

/**
 * The figures of Início, from the sales table. Page views (and so conversion) need the analytics
 * service; until it is wired here they are null and shown as "—". This is the one module to switch.
 */

export const PERIODS = ['hoje', '7', '30', '90'] as const;
export type Period = (typeof PERIODS)[number];

export const PERIOD_LABELS: Record<Period, string> = {
  hoje: 'Hoje',
  '7': 'Últimos 7 dias',
  '30': 'Últimos 30 dias',
  '90': 'Últimos 90 dias',
};

/** Days are São Paulo's (UTC−3, no daylight saving since 2019): a store's "hoje" starts at 03:00 UTC. */
const STORE_UTC_OFFSET_MS = -3 * 3600_000;
const DAY_MS = 86_400_000;

export interface DayRevenue {
  /** `YYYY-MM-DD`, São Paulo. */
  date: string;
  revenueCents: number;
  sales: number;
}

export interface Figures {
  revenueCents: number;
  sales: number;
  pageViews: number | null;
  /** Sales per page view, 0..1; null without page views. */
  conversion: number | null;
  /** One entry per day of the period, oldest first, days without sales included. */
  days: DayRevenue[];
}

const localDate = (ms: number) => new Date(ms + STORE_UTC_OFFSET_MS).toISOString().slice(0, 10);

/** The first instant (UTC ms) of each São Paulo day of the period, oldest first, today last. */
function periodDays(period: Period, now: Date): number[] {
  const todayStart = Date.parse(`${localDate(now.getTime())}T00:00:00.000Z`) - STORE_UTC_OFFSET_MS;
  const count = period === 'hoje' ? 1 : Number(period);
  return Array.from({ length: count }, (_, i) => todayStart - (count - 1 - i) * DAY_MS);
}

/**
 * Net revenue (approved sales, refunds excluded) and sales of the period, by day. The sum is grouped
 * by UTC hour in the database (an index range on (store, mode, created_at)), then hours are placed
 * in São Paulo days here: at most 24 rows a day, on both databases alike.
 */
export async function periodFigures(
  db: Kysely<Database>,
  storeId: string,
  livemode: boolean,
  period: Period,
  now: Date = new Date(),
): Promise<Figures> {
  const starts = periodDays(period, now);
  const from = new Date(starts[0]!).toISOString();
  const rows = await db
    .selectFrom('sales')
    .select((eb) => [
      eb.fn<string>('substr', ['created_at', eb.val(1), eb.val(13)]).as('hour'),
      eb.fn.sum<number | string>('amount_cents').as('cents'),
      eb.fn.countAll<number | string>().as('n'),
    ])
    .where('store_id', '=', storeId)
    .where('livemode', '=', fromBool(livemode))
    .where('created_at', '>=', from)
    .where('status', '=', 'approved')
    .groupBy('hour')
    .execute();
  const days: DayRevenue[] = starts.map((start) => ({ date: localDate(start), revenueCents: 0, sales: 0 }));
  const byDate = new Map(days.map((day) => [day.date, day]));
  for (const row of rows) {
    const day = byDate.get(localDate(Date.parse(`${row.hour}:00:00.000Z`)));
    if (!day) continue;
    day.revenueCents += Number(row.cents);
    day.sales += Number(row.n);
  }
  const revenueCents = days.reduce((sum, day) => sum + day.revenueCents, 0);
  const sales = days.reduce((sum, day) => sum + day.sales, 0);
  return { revenueCents, sales, pageViews: null, conversion: null, days };
}

export interface LatestSale {
  id: string;
  created_at: string;
  status: 'approved' | 'refunded';
  amount_cents: number;
  customer_name: string | null;
  product_name: string | null;
}

/** The store's newest sales in the mode it charges in. */
export async function latestSales(
  db: Kysely<Database>,
  storeId: string,
  livemode: boolean,
  limit = 10,
): Promise<LatestSale[]> {
  const rows = await db
    .selectFrom('sales')
    .leftJoin('products', 'products.id', 'sales.product_id')
    .select([
      'sales.id',
      'sales.created_at',
      'sales.status',
      'sales.amount_cents',
      'sales.customer',
      'products.nome as product_name',
    ])
    .where('sales.store_id', '=', storeId)
    .where('sales.livemode', '=', fromBool(livemode))
    .orderBy('sales.created_at', 'desc')
    .orderBy('sales.id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    created_at: row.created_at,
    status: row.status,
    amount_cents: row.amount_cents,
    customer_name: row.customer ? ((JSON.parse(row.customer) as { name?: string }).name ?? null) : null,
    product_name: row.product_name,
  }));
}
