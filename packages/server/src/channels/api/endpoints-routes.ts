import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { EventTypeSchema } from '../../platform/outbox/event-types.js';
import { invalidRequest, notFound } from '../../platform/http/api-error.js';
import { sendCreation } from '../../platform/http/idempotency.js';
import { PageQuery } from '../../platform/http/pagination.js';
import { IdParams, ListEnvelope, Nullable, errorResponses } from '../../platform/http/schemas.js';
import { isUuid } from '../../platform/values/ids.js';
import { createSecretBox } from '../../platform/values/secret-box.js';
import {
  StatusSchema,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  subscribedEvents,
  toWebhookEndpoint,
} from '../../domain/webhooks/endpoint-object.js';
import {
  deleteEndpoint,
  findEndpoint,
  listEndpointsQuery,
  updateEndpoint,
} from '../../domain/webhooks/endpoints-repository.js';
import type { EndpointScope } from '../../domain/webhooks/endpoints-repository.js';
import { WebhookRuleError, createEndpoint, foldEvents } from '../../domain/webhooks/endpoint-service.js';
import {
  DEFAULT_ROTATION_OVERLAP_HOURS,
  MAX_ROTATION_OVERLAP_HOURS,
  rotateEndpointSecret,
} from '../../domain/webhooks/secret-rotation.js';
import { checkWebhookUrl } from '../../platform/outbound/url-policy.js';
import { recordAudit } from '../../domain/accounts/audit.js';
import type { AuditAction } from '../../domain/accounts/audit.js';
import { keyActor } from './key-actor.js';

const UrlField = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'Public https address on port 443 or 8443.',
  example: 'https://example.com/webhooks/storefront',
});
const EventsField = Type.Array(EventTypeSchema, { minItems: 1, maxItems: 100, description: 'At least one.' });
const DescriptionField = Nullable(Type.String({ maxLength: 500, description: 'Internal label.' }));

const CreateEndpointBody = Type.Object(
  {
    url: UrlField,
    events: EventsField,
    description: Type.Optional(DescriptionField),
    status: Type.Optional(Type.Unsafe<'active' | 'paused'>({ type: 'string', enum: ['active', 'paused'] })),
  },
  { additionalProperties: false },
);

const UpdateEndpointBody = Type.Object(
  {
    url: Type.Optional(UrlField),
    events: Type.Optional(EventsField),
    description: Type.Optional(DescriptionField),
    status: Type.Optional(StatusSchema),
  },
  { additionalProperties: false },
);

/** The fields a PATCH changed, as the owners' audit log names them. */
const FIELD_LABELS = { url: 'endereço', events: 'eventos', description: 'descrição', status: 'situação' };

const DeletedEndpoint = Type.Object({
  object: Type.Literal('webhook_endpoint'),
  id: Type.String({ format: 'uuid' }),
  deleted: Type.Literal(true),
});

const RotateSecretBody = Type.Object(
  {
    expires_in_hours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROTATION_OVERLAP_HOURS,
        default: DEFAULT_ROTATION_OVERLAP_HOURS,
        description:
          'How long the current secret keeps signing beside the new one (0: it stops at once). Default 24.',
      }),
    ),
  },
  { additionalProperties: false },
);

const ListEndpointsQuery = Type.Partial(Type.Object(PageQuery), { additionalProperties: false });

export const scopeOf = (request: FastifyRequest): EndpointScope => ({
  storeId: request.auth.storeId,
  livemode: request.auth.livemode,
});

/** A rule of the endpoint service, as the API's 400. */
export function asApiError(error: unknown): unknown {
  return error instanceof WebhookRuleError ? invalidRequest(error.message) : error;
}

export async function webhookEndpointsRoutes(parent: FastifyInstance): Promise<void> {
  const app = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = app;
  const secretBox = createSecretBox(config.secret);
  const tags = ['Webhook endpoints'];

  /** The key's audit entry, in the change's transaction. */
  const audit = (trx: typeof db, request: FastifyRequest, action: AuditAction, detail: string) =>
    recordAudit(trx, request.auth.storeId, keyActor(request), action, detail);

  function acceptedUrl(raw: string): string {
    const check = checkWebhookUrl(raw, { allowedHosts: config.webhookAllowedHosts });
    if (!check.ok) throw invalidRequest(`Invalid url: ${check.reason}.`, 'url');
    return raw;
  }

  async function endpointOr404(executor: typeof db, request: FastifyRequest, id: string) {
    const row = isUuid(id) ? await findEndpoint(executor, scopeOf(request), id) : undefined;
    if (!row) throw notFound('webhook endpoint', id);
    return row;
  }

  app.post(
    '/webhooks',
    {
      config: { scope: 'webhooks:manage', idempotent: true },
      schema: {
        tags,
        operationId: 'createWebhookEndpoint',
        summary: 'Create a webhook endpoint; the answer is the only place its secret appears',
        body: CreateEndpointBody,
        response: { 201: WebhookEndpointWithSecret, ...errorResponses(400, 409) },
      },
    },
    async (request, reply) => {
      const { body } = request;
      const url = acceptedUrl(body.url);
      return sendCreation(request, reply, 201, (keep) =>
        db
          .transaction()
          .execute(async (trx) => {
            const { row, secret } = await createEndpoint(trx, secretBox, scopeOf(request), { ...body, url });
            const object = { ...toWebhookEndpoint(row), secret };
            await audit(trx, request, 'webhook_created', `${url} (${subscribedEvents(row).join(', ')})`);
            await keep(trx, object);
            return object;
          })
          .catch((error: unknown) => {
            throw asApiError(error);
          }),
      );
    },
  );

  app.get(
    '/webhooks',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        operationId: 'listWebhookEndpoints',
        summary: 'List webhook endpoints, newest first (never with their secret)',
        querystring: ListEndpointsQuery,
        response: { 200: ListEnvelope(WebhookEndpoint), ...errorResponses(400) },
      },
    },
    async (request) =>
      app.pagination.list(
        {
          listing: 'webhook_endpoints',
          storeId: request.auth.storeId,
          limit: request.query.limit ?? 20,
          startingAfter: request.query.starting_after,
        },
        listEndpointsQuery(db, scopeOf(request)),
        toWebhookEndpoint,
      ),
  );

  app.get(
    '/webhooks/:id',
    {
      config: { scope: 'webhooks:read' },
      schema: {
        tags,
        operationId: 'getWebhookEndpoint',
        summary: 'Retrieve a webhook endpoint (without its secret)',
        params: IdParams,
        response: { 200: WebhookEndpoint, ...errorResponses(404) },
      },
    },
    async (request) => toWebhookEndpoint(await endpointOr404(db, request, request.params.id)),
  );

  app.patch(
    '/webhooks/:id',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        tags,
        operationId: 'updateWebhookEndpoint',
        summary: 'Change the url, description, events or status of a webhook endpoint',
        params: IdParams,
        body: UpdateEndpointBody,
        response: { 200: WebhookEndpoint, ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { body } = request;
      const url = body.url === undefined ? undefined : acceptedUrl(body.url);
      return db.transaction().execute(async (trx) => {
        const row = await endpointOr404(trx, request, request.params.id);
        const events = body.events && foldEvents(body.events);
        const updated = await updateEndpoint(trx, row, { ...body, url, events });
        const fields = (Object.keys(FIELD_LABELS) as (keyof typeof FIELD_LABELS)[]).filter(
          (field) => body[field] !== undefined,
        );
        const changed = fields.map((field) => FIELD_LABELS[field]).join(', ');
        if (fields.length > 0) await audit(trx, request, 'webhook_updated', `${row.url}: ${changed}`);
        return toWebhookEndpoint(updated);
      });
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      config: { scope: 'webhooks:manage' },
      schema: {
        tags,
        operationId: 'deleteWebhookEndpoint',
        summary: 'Delete a webhook endpoint; its delivery history is kept',
        params: IdParams,
        response: { 200: DeletedEndpoint, ...errorResponses(404) },
      },
    },
    async (request) =>
      db.transaction().execute(async (trx) => {
        const row = await endpointOr404(trx, request, request.params.id);
        await deleteEndpoint(trx, row);
        await audit(trx, request, 'webhook_deleted', row.url);
        return { object: 'webhook_endpoint' as const, id: row.id, deleted: true as const };
      }),
  );

  app.post(
    '/webhooks/:id/rotate_secret',
    {
      // A retried rotation (a lost answer, the client's automatic retry) must not rotate twice.
      config: { scope: 'webhooks:manage', idempotent: true },
      schema: {
        tags,
        operationId: 'rotateWebhookEndpointSecret',
        summary:
          'Give the endpoint a new signing secret; the old one keeps signing beside it for `expires_in_hours`',
        description:
          'Until the old secret expires every delivery carries two `v1=` signatures, so a receiver can switch ' +
          'secrets without missing one. A new rotation ends any earlier overlap: at most two secrets sign. ' +
          'The answer is the only place the new secret appears.',
        params: IdParams,
        body: Type.Optional(RotateSecretBody),
        response: { 200: WebhookEndpointWithSecret, ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const overlapHours = request.body?.expires_in_hours ?? DEFAULT_ROTATION_OVERLAP_HOURS;
      return sendCreation(request, reply, 200, (keep) =>
        db.transaction().execute(async (trx) => {
          const current = await endpointOr404(trx, request, request.params.id);
          const { row, secret } = await rotateEndpointSecret(trx, current, overlapHours, secretBox);
          await audit(trx, request, 'webhook_secret_rotated', current.url);
          const object = { ...toWebhookEndpoint(row), secret };
          await keep(trx, object);
          return object;
        }),
      );
    },
  );
}
