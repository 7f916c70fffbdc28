import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { notFound } from '../../platform/http/api-error.js';
import { PageQuery } from '../../platform/http/pagination.js';
import { ListEnvelope, errorResponses } from '../../platform/http/schemas.js';
import { isUuid } from '../../platform/values/ids.js';
import { WebhookDelivery, toWebhookDelivery } from '../../domain/webhooks/delivery-object.js';
import { findEndpoint } from '../../domain/webhooks/endpoints-repository.js';
import { asApiError, scopeOf } from './endpoints-routes.js';
import { auditing } from '../../domain/accounts/audit.js';
import { keyActor } from './key-actor.js';
import {
  deliveriesQuery,
  findDelivery,
  queueTestEvent,
  retryDelivery,
} from '../../domain/webhooks/endpoint-service.js';

const EndpointParams = Type.Object({ id: Type.String() });
const DeliveryParams = Type.Object({ id: Type.String(), delivery_id: Type.String() });
const ListDeliveriesQuery = Type.Partial(Type.Object(PageQuery), { additionalProperties: false });

const WebhookTest = Type.Object(
  {
    object: Type.Literal('webhook_test'),
    endpoint_id: Type.String({ format: 'uuid' }),
    event_id: Type.String({ description: 'The queued `webhook.test` event.' }),
  },
  { $id: 'WebhookTest', title: 'Queued test event' },
);

const WebhookDeliveryRetry = Type.Object(
  {
    object: Type.Literal('webhook_delivery_retry'),
    endpoint_id: Type.String({ format: 'uuid' }),
    delivery_id: Type.String(),
    event_id: Type.String({ description: 'The event queued again for this endpoint.' }),
  },
  { $id: 'WebhookDeliveryRetry', title: 'Queued resend' },
);

export async function webhookDeliveriesRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;
  const tags = ['Webhook endpoints'];

  async function endpointOr404(request: FastifyRequest, id: string, includeDeleted = false) {
    const row = isUuid(id) ? await findEndpoint(db, scopeOf(request), id, { includeDeleted }) : undefined;
    if (!row) throw notFound('webhook endpoint', id);
    return row;
  }

  app.post(
    '/webhooks/:id/test',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        tags,
        operationId: 'testWebhookEndpoint',
        summary: 'Queue a signed `webhook.test` event for this endpoint only (it must be active)',
        params: EndpointParams,
        response: { 202: WebhookTest, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const row = await endpointOr404(request, request.params.id);
      const onWrite = auditing(row.store_id, keyActor(request), 'webhook_tested', row.url);
      const event = await queueTestEvent(db, row, onWrite).catch((error: unknown) => {
        throw asApiError(error);
      });
      return reply.code(202).send({ object: 'webhook_test', endpoint_id: row.id, event_id: event.id });
    },
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        operationId: 'listWebhookDeliveries',
        summary: 'The last 20 delivery attempts of an endpoint, newest first (kept after it is deleted)',
        params: EndpointParams,
        querystring: ListDeliveriesQuery,
        response: { 200: ListEnvelope(WebhookDelivery), ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const row = await endpointOr404(request, request.params.id, true);
      return app.pagination.list(
        {
          listing: `webhook_deliveries:${row.id}`,
          storeId: row.store_id,
          limit: request.query.limit ?? 20,
          startingAfter: request.query.starting_after,
        },
        deliveriesQuery(db, row),
        toWebhookDelivery,
      );
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:delivery_id/retry',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        tags,
        operationId: 'retryWebhookDelivery',
        summary: "Send that delivery's event to the endpoint again, now, as a new attempt",
        params: DeliveryParams,
        response: { 202: WebhookDeliveryRetry, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const { id, delivery_id: deliveryId } = request.params;
      const row = await endpointOr404(request, id);
      const delivery = await findDelivery(db, row, deliveryId);
      if (!delivery) throw notFound('webhook delivery', deliveryId);
      const detail = `${row.url} (${delivery.event_id})`;
      const onWrite = auditing(row.store_id, keyActor(request), 'webhook_retried', detail);
      await retryDelivery(db, row, delivery, onWrite).catch((error: unknown) => {
        throw asApiError(error);
      });
      return reply.code(202).send({
        object: 'webhook_delivery_retry',
        endpoint_id: row.id,
        delivery_id: delivery.id,
        event_id: delivery.event_id,
      });
    },
  );
}
