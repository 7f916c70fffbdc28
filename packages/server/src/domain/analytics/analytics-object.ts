import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Nullable } from '../../platform/http/schemas.js';

/** The longest range one summary covers: a leap year. */
export const MAX_SUMMARY_DAYS = 366;

/** A calendar date in the store's time zone. */
const LocalDate = (description: string) =>
  Type.String({ format: 'date', maxLength: 10, example: '2026-11-22', description });

export const SummaryQuery = Type.Object(
  {
    from: LocalDate('First day (YYYY-MM-DD, in the store’s time zone), included.'),
    to: LocalDate(
      `Last day, included: on or after \`from\`, at most ${MAX_SUMMARY_DAYS} days counting both.`,
    ),
    product_id: Type.Optional(
      Type.String({
        format: 'uuid',
        maxLength: 36,
        description: 'Only this product’s figures (its page, its orders and sales).',
      }),
    ),
  },
  { additionalProperties: false },
);

const Count = (description: string) => Type.Integer({ minimum: 0, description });
const Amount = (description: string) => Type.Number({ description, example: 149.7 });

const dayFields = {
  page_views: Count('200 answers to a GET of the product’s purchase page.'),
  orders: Count('Orders placed on purchase pages, on their creation day.'),
  paid_orders: Count('Purchase-page orders paid, on their payment day.'),
  sales: Count(
    'Approved sales on their payment day: paid orders and charges made through the API (whatever happened to them later).',
  ),
  gross_amount: Amount('BRL of those sales, on their payment day.'),
  refunded_amount: Amount('BRL refunded, on the refund’s day (whenever the sale was made).'),
  net_amount: Amount('gross_amount − refunded_amount.'),
};

const MethodFigures = (method: string, amount: string) =>
  Type.Object({
    sales: Count(`Of \`sales\`, those paid by ${method}.`),
    gross_amount: Amount(amount),
  });

export const AnalyticsDay = Type.Object(
  { date: LocalDate('The local date.'), ...dayFields },
  { $id: 'AnalyticsDay', title: 'AnalyticsDay' },
);

export const AnalyticsSummary = Type.Object(
  {
    object: Type.Literal('analytics_summary'),
    from: LocalDate('The first day, as asked.'),
    to: LocalDate('The last day, as asked.'),
    ...dayFields,
    conversion_rate: Nullable(
      Type.Number({
        minimum: 0,
        description:
          'paid_orders ÷ page_views over the range, rounded to 4 decimals (0.0125 = 1.25%); null without a page view. Orders placed without a page view (scripts) can make it exceed 1.',
      }),
    ),
    by_method: Type.Object(
      {
        pix: MethodFigures('Pix', 'BRL of those sales.'),
        card: MethodFigures('card', 'BRL of those sales: the goods’ price, without the buyer’s interest.'),
      },
      {
        description:
          'API 1.3.0: `sales` and `gross_amount` split by payment method (free sales are in neither); like them, a later refund or chargeback changes neither.',
      },
    ),
    days: Type.Array(AnalyticsDay, { description: 'Every day of the range, oldest first, zeros included.' }),
  },
  { $id: 'AnalyticsSummary', title: 'AnalyticsSummary' },
);

export type AnalyticsDay = Static<typeof AnalyticsDay>;
export type AnalyticsSummary = Static<typeof AnalyticsSummary>;
