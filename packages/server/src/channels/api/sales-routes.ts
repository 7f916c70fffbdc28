import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { resendDeliveryEmail } from '../../flows/queue-delivery-email.js';
import { notFound } from '../../platform/http/api-error.js';
import { PageQuery } from '../../platform/http/pagination.js';
import { IdParams, ListEnvelope, errorResponses } from '../../platform/http/schemas.js';
import { isUuid } from '../../platform/values/ids.js';
import { refundSale } from '../../flows/refund-sale.js';
import { keyActor } from './key-actor.js';
import { Sale, toSale } from '../../domain/sales/sale-object.js';
import { findSale, listSalesQuery } from '../../domain/sales/sales-repository.js';
import type { SaleScope } from '../../domain/sales/sales-repository.js';

const ListSalesQuery = Type.Partial(Type.Object(PageQuery), { additionalProperties: false });

export async function salesRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db, payments } = app;
  const tags = ['Sales'];

  async function saleOr404(scope: SaleScope, id: string) {
    const row = isUuid(id) ? await findSale(db, scope, id) : undefined;
    if (!row) throw notFound('sale', id);
    return row;
  }

  app.get(
    '/sales',
    {
      config: { scope: 'sales:read' },
      schema: {
        tags,
        operationId: 'listSales',
        summary: 'List sales of the key’s mode, newest first',
        querystring: ListSalesQuery,
        response: { 200: ListEnvelope(Sale), ...errorResponses(400) },
      },
    },
    async (request) =>
      app.pagination.list(
        {
          // Per mode, so a test cursor is foreign to the live listing and the reverse.
          listing: `sales:${request.auth.livemode ? 'live' : 'test'}`,
          storeId: request.auth.storeId,
          limit: request.query.limit ?? 20,
          startingAfter: request.query.starting_after,
        },
        listSalesQuery(db, request.auth),
        toSale,
      ),
  );

  app.get(
    '/sales/:id',
    {
      config: { scope: 'sales:read' },
      schema: {
        tags,
        operationId: 'getSale',
        summary: 'Retrieve a sale',
        params: IdParams,
        response: { 200: Sale, ...errorResponses(404) },
      },
    },
    async (request) => toSale(await saleOr404(request.auth, request.params.id)),
  );

  app.post(
    '/sales/:id/refund',
    {
      config: { scope: 'sales:write' },
      schema: {
        tags,
        operationId: 'refundSale',
        summary:
          'Refund a whole sale (immediate for test keys; live, `refund.status` is pending until the PSP settles it)',
        params: IdParams,
        response: { 200: Sale, ...errorResponses(400, 404, 502, 503) },
      },
    },
    async (request) =>
      refundSale(
        db,
        payments,
        await saleOr404(request.auth, request.params.id),
        keyActor(request),
        app.config,
      ),
  );

  app.post(
    '/sales/:id/resend_delivery_email',
    {
      config: { scope: 'sales:write' },
      schema: {
        tags,
        operationId: 'resendSaleDeliveryEmail',
        summary: 'Queue the delivery e-mail again: 202 with the sale, its delivery_email pending',
        description:
          'Sends the delivery e-mail to the customer again, now, with a fresh retry schedule (the same Message-ID, so mail programs see a resend). One still waiting for a retry is pulled forward, never doubled; one a worker is sending at this moment finishes first. 400 when the customer has no e-mail, the sale is refunded, or the service has no SMTP_URL.',
        params: IdParams,
        response: { 202: Sale, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const row = await saleOr404(request.auth, request.params.id);
      const queued = await resendDeliveryEmail(db, row, app.config, keyActor(request));
      return reply.code(202).send(toSale(queued));
    },
  );
}
