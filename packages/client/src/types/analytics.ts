/** A date as YYYY-MM-DD, in the store's time zone. */
export type LocalDate = string;

/** One day's figures (or, at the top of a summary, the whole range's). */
export interface AnalyticsFigures {
  /** 200 answers to a GET of a product's purchase page. */
  page_views: number;
  /** Orders placed on purchase pages, on their creation day. */
  orders: number;
  /** Purchase-page orders paid, on their payment day. */
  paid_orders: number;
  /** Approved sales on their payment day: paid orders and charges made through the API. */
  sales: number;
  /** BRL of those sales, on their payment day. */
  gross_amount: number;
  /** BRL refunded, on the refund's day. */
  refunded_amount: number;
  /** gross_amount − refunded_amount. */
  net_amount: number;
}

export interface AnalyticsDay extends AnalyticsFigures {
  date: LocalDate;
}

/** Sales paid one way, over the whole range. */
export interface AnalyticsMethodFigures {
  sales: number;
  /** BRL; for card sales the goods' price, without the buyer's interest. */
  gross_amount: number;
}

/** A store's funnel of the key's mode, per local day (API 1.2.0). */
export interface AnalyticsSummary extends AnalyticsFigures {
  object: 'analytics_summary';
  from: LocalDate;
  to: LocalDate;
  /** paid_orders ÷ page_views, rounded to 4 decimals; null without a page view. */
  conversion_rate: number | null;
  /** The range's sales split by how they were paid (API 1.3.0). */
  by_method: { pix: AnalyticsMethodFigures; card: AnalyticsMethodFigures };
  /** Every day of the range, oldest first, zeros included. */
  days: AnalyticsDay[];
}

export interface AnalyticsSummaryParams {
  /** First day, included. */
  from: LocalDate;
  /** Last day, included: on or after `from`, at most 366 days counting both. */
  to: LocalDate;
  /** Only this product's figures. */
  product_id?: string;
}
