import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses } from '../../platform/http/schemas.js';
import { AnalyticsSummary, MAX_SUMMARY_DAYS, SummaryQuery } from '../../domain/analytics/analytics-object.js';
import { analyticsSummary } from '../../domain/analytics/summary.js';

export async function analyticsRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;

  app.get(
    '/analytics/summary',
    {
      config: { scope: 'sales:read' },
      schema: {
        tags: ['Analytics'],
        operationId: 'getAnalyticsSummary',
        summary: 'Page views, orders, sales and refunds per day of the key’s mode',
        description: `Days are local dates in the store’s time zone (\`America/Sao_Paulo\` unless set). Orders count on their creation day; paid orders, sales and \`gross_amount\` on their payment day; \`refunded_amount\` on the refund’s day (a refund changes neither \`sales\` nor \`gross_amount\`). Page views are written by each server process every few seconds, so the last seconds may not show yet. At most ${MAX_SUMMARY_DAYS} days per request; 400 naming \`to\` when the range is backwards or longer.`,
        querystring: SummaryQuery,
        response: { 200: AnalyticsSummary, ...errorResponses(400) },
      },
    },
    async (request) =>
      analyticsSummary(db, {
        storeId: request.auth.storeId,
        livemode: request.auth.livemode,
        from: request.query.from,
        to: request.query.to,
        productId: request.query.product_id,
      }),
  );
}
