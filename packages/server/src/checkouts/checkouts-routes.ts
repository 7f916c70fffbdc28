import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { recordEvent } from '../events/outbox.js';
import { invalidRequest, notFound } from '../http/api-error.js';
import { sendCreation } from '../http/idempotency.js';
import { PageQuery } from '../http/pagination.js';
import { VISIBLE_TEXT_PATTERN } from '../http/text-patterns.js';
import { IdParams, ListEnvelope, errorResponses } from '../http/schemas.js';
import { linkProductToCheckout, unlinkProductsFromCheckout } from '../products/checkout-links.js';
import { isUuid } from '../common/ids.js';
import { Checkout, toCheckout } from './checkout-object.js';
import {
  findCheckout,
  findDefaultCheckout,
  insertCheckout,
  listCheckoutsQuery,
  markArchived,
  updateCheckout,
} from './checkouts-repository.js';
import { CheckoutSettingsInput } from './settings.js';
import type { CheckoutSettings } from './settings.js';

const CheckoutName = Type.String({
  minLength: 1,
  maxLength: 120,
  pattern: VISIBLE_TEXT_PATTERN,
  description: '1-120 characters.',
});

const CreateCheckoutBody = Type.Object(
  {
    name: CheckoutName,
    product_id: Type.Optional(
      Type.String({ format: 'uuid', description: 'A product of the store to link to the new checkout.' }),
    ),
    settings_json: Type.Optional(CheckoutSettingsInput),
  },
  { additionalProperties: false },
);

const UpdateCheckoutBody = Type.Object(
  {
    name: Type.Optional(CheckoutName),
    settings_json: Type.Optional(CheckoutSettingsInput),
  },
  { additionalProperties: false },
);

const ListCheckoutsQuery = Type.Partial(Type.Object(PageQuery), { additionalProperties: false });

export async function checkoutsRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app;
  const tags = ['Checkouts'];

  async function checkoutOr404(executor: typeof db, storeId: string, id: string) {
    const row = isUuid(id) ? await findCheckout(executor, storeId, id) : undefined;
    if (!row) throw notFound('checkout', id);
    return row;
  }

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
    async (request, reply) => {
      const { storeId, livemode } = request.auth;
      return sendCreation(request, reply, 201, (keep) =>
        db.transaction().execute(async (trx) => {
          const base = await findDefaultCheckout(trx, storeId);
          const settings: CheckoutSettings = {
            ...(JSON.parse(base.settings_json) as CheckoutSettings),
            ...request.body.settings_json,
          };
          const row = await insertCheckout(trx, {
            storeId,
            name: request.body.name,
            settings,
            isDefault: false,
          });
          const object = toCheckout(row);
          await recordEvent(trx, { storeId, type: 'checkout.created', livemode, object });
          if (request.body.product_id)
            await linkProductToCheckout(trx, request.auth, request.body.product_id, row.id);
          await keep(trx, object);
          return object;
        }),
      );
    },
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
    async (request) => {
      const { storeId, livemode } = request.auth;
      return db.transaction().execute(async (trx) => {
        const row = await checkoutOr404(trx, storeId, request.params.id);
        if (row.is_default === 1) throw invalidRequest('The default checkout cannot be archived.');
        const archived = await markArchived(trx, row);
        // Already archived (now or by a concurrent request): same answer, no second event.
        if (!archived) return toCheckout({ ...row, archived: 1 });
        const object = toCheckout(archived);
        await recordEvent(trx, { storeId, type: 'checkout.archived', livemode, object });
        await unlinkProductsFromCheckout(trx, request.auth, row.id);
        return object;
      });
    },
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
    async (request) => {
      const { storeId, livemode } = request.auth;
      return db.transaction().execute(async (trx) => {
        const row = await checkoutOr404(trx, storeId, request.params.id);
        const settings: CheckoutSettings = {
          ...(JSON.parse(row.settings_json) as CheckoutSettings),
          ...request.body.settings_json,
        };
        const updated = await updateCheckout(trx, row, { name: request.body.name ?? row.name, settings });
        const object = toCheckout(updated);
        await recordEvent(trx, { storeId, type: 'checkout.updated', livemode, object });
        return object;
      });
    },
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
    async (request) => {
      const { storeId, livemode } = request.auth;
      return db.transaction().execute(async (trx) => {
        const row = await checkoutOr404(trx, storeId, request.params.id);
        const restored = await markArchived(trx, row, 0);
        // Not archived (now or by a concurrent request): same answer, no event.
        if (!restored) return toCheckout({ ...row, archived: 0 });
        const object = toCheckout(restored);
        await recordEvent(trx, { storeId, type: 'checkout.updated', livemode, object });
        return object;
      });
    },
  );
}
