import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../platform/http/api-error.js';
import { PageQuery } from '../../platform/http/pagination.js';
import { IdParams, ListEnvelope, errorResponses } from '../../platform/http/schemas.js';
import { Event } from '../../domain/events/event-object.js';
import type { EventsTable } from '../../platform/outbox/outbox.js';
import { AnyEventTypeSchema } from '../../platform/outbox/event-types.js';
import type { AnyEventType } from '../../platform/outbox/event-types.js';

const ListEventsQuery = Type.Partial(
  Type.Object({
    ...PageQuery,
    type: Type.Unsafe<AnyEventType>({ ...AnyEventTypeSchema, description: 'Only events of this type.' }),
  }),
  { additionalProperties: false },
);

const toEvent = (row: Pick<EventsTable, 'payload'>): Event => JSON.parse(row.payload) as Event;

/**
 * Beyond the spec: past events, so a receiver can reconcile what it missed. Scoped to the store and
 * to the mode of the key, as Pix charges and sales are: a test key never reads live events.
 */
export async function eventsRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;
  const tags = ['Events'];

  const scoped = (storeId: string, livemode: boolean) =>
    db
      .selectFrom('events')
      .select(['id', 'payload', 'created_at'])
      .where('store_id', '=', storeId)
      .where('livemode', '=', livemode ? 1 : 0);

  app.get(
    '/events',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        operationId: 'listEvents',
        summary: 'List events, newest first',
        querystring: ListEventsQuery,
        response: { 200: ListEnvelope(Event), ...errorResponses(400) },
      },
    },
    async (request) => {
      const { storeId, livemode } = request.auth;
      const { type } = request.query;
      return app.pagination.list(
        {
          listing: 'events',
          storeId,
          limit: request.query.limit ?? 20,
          startingAfter: request.query.starting_after,
        },
        scoped(storeId, livemode).$if(type !== undefined, (q) => q.where('type', '=', type!)),
        toEvent,
      );
    },
  );

  app.get(
    '/events/:id',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        operationId: 'getEvent',
        summary: 'Retrieve an event',
        params: IdParams,
        response: { 200: Event, ...errorResponses(404) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const row = id.startsWith('evt_')
        ? await scoped(request.auth.storeId, request.auth.livemode).where('id', '=', id).executeTakeFirst()
        : undefined;
      if (!row) throw notFound('event', id);
      return toEvent(row);
    },
  );
}
