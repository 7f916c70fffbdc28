import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { invalidRequest, notFound } from '../../platform/http/api-error.js';
import { PageQuery } from '../../platform/http/pagination.js';
import { IdParams, ListEnvelope, Timestamp, errorResponses } from '../../platform/http/schemas.js';
import { isUuid } from '../../platform/values/ids.js';
import { nowIso } from '../../platform/values/time.js';
import { abandonOrder } from '../../flows/abandon-orders.js';
import { Order, OrderStatusSchema, toOrder } from '../../domain/orders/order-object.js';
import { findScopedOrder, listOrdersQuery } from '../../domain/orders/orders-repository.js';
import type { OrderScope } from '../../domain/orders/orders-repository.js';

const ListOrdersQuery = Type.Partial(
  Type.Object({
    ...PageQuery,
    status: OrderStatusSchema,
    product_id: Type.String({
      format: 'uuid',
      maxLength: 36,
      description: 'Only orders of this (main) product.',
    }),
    'created[gte]': {
      ...Timestamp,
      maxLength: 40,
      description: 'Only orders placed at or after this instant.',
    },
    'created[lte]': {
      ...Timestamp,
      maxLength: 40,
      description: 'Only orders placed at or before this instant.',
    },
  }),
  { additionalProperties: false },
);

/** Any ISO 8601 instant, as stored (UTC with milliseconds), so it compares as text. */
const asStored = (value: string | undefined) =>
  value === undefined ? undefined : new Date(value).toISOString();

/**
 * Purchase-page orders as an API resource (API 1.2.0), per store and mode like charges and sales:
 * a test key never sees a live order.
 */
export async function ordersRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = app;
  const tags = ['Orders'];

  async function orderOr404(scope: OrderScope, id: string) {
    const row = isUuid(id) ? await findScopedOrder(db, scope, id) : undefined;
    if (!row) throw notFound('order', id);
    return row;
  }

  app.get(
    '/orders',
    {
      config: { scope: 'orders:read' },
      schema: {
        tags,
        operationId: 'listOrders',
        summary: 'List purchase-page orders of the key’s mode, newest first, with optional filters',
        querystring: ListOrdersQuery,
        response: { 200: ListEnvelope(Order), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { query } = request;
      return app.pagination.list(
        {
          // Per mode, so a test cursor is foreign to the live listing and the reverse.
          listing: `orders:${request.auth.livemode ? 'live' : 'test'}`,
          storeId: request.auth.storeId,
          limit: query.limit ?? 20,
          startingAfter: query.starting_after,
        },
        listOrdersQuery(db, request.auth, {
          status: query.status,
          productId: query.product_id,
          createdGte: asStored(query['created[gte]']),
          createdLte: asStored(query['created[lte]']),
        }),
        toOrder,
      );
    },
  );

  app.get(
    '/orders/:id',
    {
      config: { scope: 'orders:read' },
      schema: {
        tags,
        operationId: 'getOrder',
        summary: 'Retrieve an order',
        params: IdParams,
        response: { 200: Order, ...errorResponses(404) },
      },
    },
    async (request) => toOrder(await orderOr404(request.auth, request.params.id)),
  );

  app.post(
    '/orders/:id/simulate_abandonment',
    {
      config: { scope: 'orders:write' },
      schema: {
        tags,
        operationId: 'simulateOrderAbandonment',
        summary:
          'Test keys only: a pending order is abandoned at once (order.abandoned), its recovery e-mail sent at once when the store has it on',
        params: IdParams,
        response: { 200: Order, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      if (request.auth.livemode) {
        throw invalidRequest(
          'simulate_abandonment is only available to test keys (sk_test_…); live orders are abandoned 30 minutes after they are placed.',
        );
      }
      const order = await orderOr404(request.auth, request.params.id);
      const abandoned = await abandonOrder(db, order, config, { at: nowIso(), emailNow: true });
      if (!abandoned) {
        const current = (await findScopedOrder(db, request.auth, order.id)) ?? order;
        throw invalidRequest(`This order is ${current.status}; only a pending order can be abandoned.`);
      }
      return toOrder(abandoned);
    },
  );
}
