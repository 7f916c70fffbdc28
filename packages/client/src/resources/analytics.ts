import type { RequestOptions } from '../core/options.js';
import type { AnalyticsSummary, AnalyticsSummaryParams } from '../types/analytics.js';
import { APIResource } from './resource.js';

/** A store's funnel per day in its time zone: `/analytics` (API 1.2.0). */
export class Analytics extends APIResource {
  /** Page views, orders, paid orders, sales and refunds per day from `from` to `to` (at most 366 days). */
  async summary(params: AnalyticsSummaryParams, options?: RequestOptions): Promise<AnalyticsSummary> {
    return this.core.request({ method: 'GET', path: '/analytics/summary', query: params, options });
  }
}
