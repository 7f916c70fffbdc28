import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { sendCreation } from '../../platform/http/idempotency.js';
import { PageQuery } from '../../platform/http/pagination.js';
import { IdParams, ListEnvelope, errorResponses } from '../../platform/http/schemas.js';
import { Checkout, toCheckout } from '../../domain/checkouts/checkout-object.js';
import { CreateCheckoutBody, UpdateCheckoutBody } from '../../domain/checkouts/checkout-schemas.js';
import { changeCheckout, checkoutOr404, unarchiveCheckout } from '../../domain/checkouts/checkout-service.js';
import { archiveCheckout } from '../../flows/archive-checkout.js';
import { createCheckout } from '../../flows/create-checkout.js';
import { listCheckoutsQuery } from '../../domain/checkouts/checkouts-repository.js';

const ListCheckoutsQuery = Type.Partial(Type.Object(PageQuery), { additionalProperties: false });

export async function checkoutsRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;
  const tags = ['Checkouts'];

  app.get(
    '/checkouts',
    {
      config: { scope: 'checkouts:read' },
      schema: {
        tags,
        operationId: 'listCheckouts',
        summary: 'List checkouts, newest first',
        querystring: ListCheckoutsQuery,
        response: { 200: ListEnvelope(Checkout), ...errorResponses(400) },
      },
    },
    async (request) =>
      app.pagination.list(
        {
          listing: 'checkouts',
          storeId: request.auth.storeId,
          limit: request.query.limit ?? 20,
          startingAfter: request.query.starting_after,
        },
        listCheckoutsQuery(db, request.auth.storeId),
        toCheckout,
      ),
  );

  app.post(
    '/checkouts',
    {
      config: { scope: 'checkouts:write', idempotent: true },
      schema: {
        tags,
        operationId: 'createCheckout',
        summary: 'Create a checkout; omitted settings inherit from the default checkout',
        body: CreateCheckoutBody,
        response: { 201: Checkout, ...errorResponses(400, 404, 409) },
      },
    },
    async (request, reply) =>
      sendCreation(request, reply, 201, (keep) =>
        db.transaction().execute(async (trx) => {
          const object = await createCheckout(trx, request.auth, request.body);
          await keep(trx, object);
          return object;
        }),
      ),
  );

  app.get(
    '/checkouts/:id',
    {
      config: { scope: 'checkouts:read' },
      schema: {
        tags,
        operationId: 'getCheckout',
        summary: 'Retrieve a checkout',
        params: IdParams,
        response: { 200: Checkout, ...errorResponses(404) },
      },
    },
    async (request) => toCheckout(await checkoutOr404(db, request.auth.storeId, request.params.id)),
  );

  app.post(
    '/checkouts/:id/archive',
    {
      config: { scope: 'checkouts:write' },
      schema: {
        tags,
        operationId: 'archiveCheckout',
        summary: 'Archive a checkout (idempotent); the default checkout cannot be archived',
        params: IdParams,
        response: { 200: Checkout, ...errorResponses(400, 404) },
      },
    },
    async (request) =>
      db
        .transaction()
        .execute(async (trx) =>
          archiveCheckout(
            trx,
            request.auth,
            await checkoutOr404(trx, request.auth.storeId, request.params.id),
          ),
        ),
  );

  app.patch(
    '/checkouts/:id',
    {
      config: { scope: 'checkouts:write' },
      schema: {
        tags,
        operationId: 'updateCheckout',
        summary: 'Change a checkout’s name or any of its settings (the default checkout too)',
        params: IdParams,
        body: UpdateCheckoutBody,
        response: { 200: Checkout, ...errorResponses(400, 404) },
      },
    },
    async (request) =>
      db
        .transaction()
        .execute(async (trx) =>
          changeCheckout(
            trx,
            request.auth,
            await checkoutOr404(trx, request.auth.storeId, request.params.id),
            request.body,
          ),
        ),
  );

  app.post(
    '/checkouts/:id/unarchive',
    {
      config: { scope: 'checkouts:write' },
      schema: {
        tags,
        operationId: 'unarchiveCheckout',
        summary: 'Make an archived checkout usable again (idempotent)',
        params: IdParams,
        response: { 200: Checkout, ...errorResponses(404) },
      },
    },
    async (request) =>
      db
        .transaction()
        .execute(async (trx) =>
          unarchiveCheckout(
            trx,
            request.auth,
            await checkoutOr404(trx, request.auth.storeId, request.params.id),
          ),
        ),
  );
}
