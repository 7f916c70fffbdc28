import type { Kysely } from 'kysely';
import { toCents } from '../../../platform/values/money.js';
import { localDate } from '../../../platform/values/local-date.js';
import { analyticsSummary } from '../../../domain/analytics/summary.js';
import type { Database } from '../../../platform/db/schema.js';
import { fromBool } from '../../../platform/db/schema.js';
import type { SaleStatus } from '../../../domain/sales/sale-object.js';
import type { SalePayment } from '../sales/payment-words.js';

/**
 * The figures of Início are the analytics summary's (`GET /analytics/summary`): the same daily totals,
 * the same days in the store's time zone, the same conversion. Nothing here counts sales itself.
 */

export const PERIODS = ['hoje', '7', '30', '90'] as const;
export type Period = (typeof PERIODS)[number];

export const PERIOD_LABELS: Record<Period, string> = {
  hoje: 'Hoje',
  '7': 'Últimos 7 dias',
  '30': 'Últimos 30 dias',
  '90': 'Últimos 90 dias',
};

const DAY_MS = 86_400_000;

export interface DayRevenue {
  /** `YYYY-MM-DD`, in the store's time zone. */
  date: string;
  /** Gross of the day's sales minus the day's refunds (negative on a day of refunds only). */
  revenueCents: number;
  sales: number;
}

/** Sales of one payment method and their gross amount (a card sale's without the buyer's interest). */
export interface MethodFigures {
  sales: number;
  grossCents: number;
}

export interface Figures {
  /** The local days the period covers, first and last included. */
  from: string;
  to: string;
  revenueCents: number;
  sales: number;
  /** The period's sales paid by Pix and by card (free ones in neither). */
  byMethod: { pix: MethodFigures; card: MethodFigures };
  pageViews: number;
  /** Paid orders per page view, 0..1, as the API rounds it; null without page views. */
  conversion: number | null;
  /** One entry per day of the period, oldest first, days without sales included. */
  days: DayRevenue[];
}

/** The period's first and last local dates: today in the store's zone and the days before it. */
export function periodRange(period: Period, timeZone: string, now: Date): { from: string; to: string } {
  const to = localDate(now, timeZone);
  const days = period === 'hoje' ? 1 : Number(period);
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  return { from, to };
}

/** The period's net revenue, sales, page views and conversion, and its days, from the analytics summary. */
export async function periodFigures(
  db: Kysely<Database>,
  scope: { storeId: string; livemode: boolean; timeZone: string },
  period: Period,
  now: Date = new Date(),
): Promise<Figures> {
  const { from, to } = periodRange(period, scope.timeZone, now);
  const summary = await analyticsSummary(db, { storeId: scope.storeId, livemode: scope.livemode, from, to });
  return {
    from,
    to,
    revenueCents: toCents(summary.net_amount),
    sales: summary.sales,
    byMethod: {
      pix: { sales: summary.by_method.pix.sales, grossCents: toCents(summary.by_method.pix.gross_amount) },
      card: { sales: summary.by_method.card.sales, grossCents: toCents(summary.by_method.card.gross_amount) },
    },
    pageViews: summary.page_views,
    conversion: summary.conversion_rate,
    days: summary.days.map((day) => ({
      date: day.date,
      revenueCents: toCents(day.net_amount),
      sales: day.sales,
    })),
  };
}

export interface LatestSale extends SalePayment {
  id: string;
  created_at: string;
  status: SaleStatus;
  amount_cents: number;
  customer_name: string | null;
  product_name: string | null;
}

/** The store's newest sales in the mode the figures are of (the mode it charges in). */
export async function latestSales(
  db: Kysely<Database>,
  storeId: string,
  livemode: boolean,
  limit = 10,
): Promise<LatestSale[]> {
  const rows = await db
    .selectFrom('sales')
    .leftJoin('products', 'products.id', 'sales.product_id')
    .leftJoin('card_payments', 'card_payments.id', 'sales.card_payment_id')
    .select([
      'sales.id',
      'sales.created_at',
      'sales.status',
      'sales.amount_cents',
      'sales.customer',
      'products.nome as product_name',
      'sales.payment_method',
      (eb) => eb.ref('sales.installments').$castTo<number | null>().as('installments'),
      'card_payments.card_brand',
      'card_payments.card_last4',
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
    payment_method: row.payment_method,
    installments: row.installments,
    card_brand: row.card_brand,
    card_last4: row.card_last4,
  }));
}
