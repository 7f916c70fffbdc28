import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createApiKey, listApiKeys, revokeApiKey } from '../../../platform/api-keys/api-keys.js';
import { parseScopes } from '../../../platform/api-keys/scopes.js';
import { isUuid } from '../../../platform/values/ids.js';
import { createSecretBox } from '../../../platform/values/secret-box.js';
import { EVENT_TYPES } from '../../../platform/outbox/event-types.js';
import type { AnyEventType, EventType } from '../../../platform/outbox/event-types.js';
import { findStoreEndpoint } from '../../../domain/webhooks/endpoints-repository.js';
import {
  WebhookRuleError,
  createEndpoint,
  findDelivery,
  queueTestEvent,
  retryDelivery,
} from '../../../domain/webhooks/endpoint-service.js';
import {
  DEFAULT_ROTATION_OVERLAP_HOURS,
  rotateEndpointSecret,
} from '../../../domain/webhooks/secret-rotation.js';
import { checkWebhookUrl } from '../../../platform/outbound/url-policy.js';
import { URL_REFUSALS } from './url-refusals.js';
import { auditRequest, auditingRequest } from '../shell/audit-request.js';
import { DashboardError } from '../shell/dashboard-plugin.js';
import { defineScreen, guard, member, sendPage } from '../shell/page.js';
import { endpointDeliveries, storeEndpoints, storeEvents } from './developers-data.js';
import { DevelopersPage, EndpointPage, EventsLog, PATH } from './developers-view.js';
import type { DevelopersState } from './developers-view.js';
import { noticeOf } from '../shell/notices.js';

const NOTICES = {
  revogada: 'Chave revogada: ela deixa de funcionar em até 5 segundos.',
  teste: 'Evento de teste enfileirado para este endpoint.',
  reenvio: 'Entrega enfileirada de novo.',
} as const;

const Csrf = { _csrf: Type.Optional(Type.String()) };
const Many = Type.Optional(
  Type.Union([
    Type.String({ maxLength: 100 }),
    Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
  ]),
);
const Mode = Type.Optional(Type.String({ maxLength: 10 }));
const KeyBody = Type.Object({ mode: Mode, scopes: Many, ...Csrf });
const EndpointBody = Type.Object({
  url: Type.String({ maxLength: 2048 }),
  mode: Mode,
  events: Many,
  ...Csrf,
});
const CsrfBody = Type.Object(Csrf);
const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });
const DeliveryParams = Type.Object({
  id: Type.String({ maxLength: 100 }),
  delivery: Type.String({ maxLength: 100 }),
});
const NoticeQuery = Type.Object({ aviso: Type.Optional(Type.String({ maxLength: 40 })) });
const EventsQuery = Type.Object({
  tipo: Type.Optional(Type.String({ maxLength: 60 })),
  antes: Type.Optional(Type.String({ maxLength: 100 })),
});

const list = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];
const isEventType = (value: string): value is EventType => (EVENT_TYPES as readonly string[]).includes(value);

/**
 * Desenvolvedores (owners only, reading too: key prefixes, endpoint addresses and the raw events
 * are an integration's secrets-adjacent details): API keys through the same service as the CLI,
 * webhook endpoints through the same services as the API, and the events log.
 */
export const developersScreen = defineScreen('developers', async (app, services) => {
  const { db, config } = app;
  const secretBox = createSecretBox(config.secret);

  async function show(request: FastifyRequest, reply: FastifyReply, state: DevelopersState, status = 200) {
    const { storeId } = member(request);
    const [keys, endpoints] = await Promise.all([listApiKeys(db, storeId), storeEndpoints(db, storeId)]);
    return sendPage(request, reply, services, {
      title: 'Desenvolvedores',
      nav: 'developers',
      status,
      body: <DevelopersPage keys={keys} endpoints={endpoints} state={state} />,
    });
  }

  async function endpointOr404(request: FastifyRequest, id: string) {
    const row = isUuid(id) ? await findStoreEndpoint(db, member(request).storeId, id) : undefined;
    if (!row) throw new DashboardError(404, 'Endpoint não encontrado.');
    return row;
  }

  async function showEndpoint(
    request: FastifyRequest,
    reply: FastifyReply,
    id: string,
    extra: { notice?: string | null; error?: string; secret?: string },
    status = 200,
  ) {
    const endpoint = await endpointOr404(request, id);
    const deliveries = await endpointDeliveries(db, endpoint);
    return sendPage(request, reply, services, {
      title: 'Endpoint de webhook',
      nav: 'developers',
      status,
      body: <EndpointPage endpoint={endpoint} deliveries={deliveries} {...extra} />,
    });
  }

  app.get('/desenvolvedores', guard('owner', { querystring: NoticeQuery }), async (request, reply) =>
    show(request, reply, { notice: noticeOf(NOTICES, request.query.aviso) }),
  );

  app.post('/desenvolvedores/chaves', guard('owner', { body: KeyBody }), async (request, reply) => {
    const { storeId } = member(request);
    const { mode } = request.body;
    const chosen = list(request.body.scopes);
    if (mode !== 'test' && mode !== 'live')
      return show(request, reply, { errors: { keys: 'Escolha o modo: Teste ou Produção.' } }, 400);
    let scopes;
    try {
      scopes = parseScopes(chosen.includes('all') ? 'all' : chosen.join(','));
    } catch {
      return show(request, reply, { errors: { keys: 'Escolha ao menos uma permissão válida.' } }, 400);
    }
    const created = await db.transaction().execute(async (trx) => {
      const key = await createApiKey(trx, { storeId, mode, scopes });
      await auditRequest(trx, request, 'api_key_created', `${key.prefix} (${mode}; ${scopes.join(' ')})`);
      return key;
    });
    return show(request, reply, { newKey: created.key });
  });

  app.post(
    '/desenvolvedores/chaves/:id/revogar',
    guard('owner', { params: IdParams, body: CsrfBody }),
    async (request, reply) => {
      const { storeId } = member(request);
      const { id } = request.params;
      const key = (await listApiKeys(db, storeId)).find((k) => k.id === id);
      const revoked = await db.transaction().execute(async (trx) => {
        if (!key || !(await revokeApiKey(trx, id, storeId))) return false;
        if (!key.revoked_at) await auditRequest(trx, request, 'api_key_revoked', key.prefix);
        return true;
      });
      if (!revoked) throw new DashboardError(404, 'Chave não encontrada.');
      return reply.redirect(`${PATH}?aviso=revogada#chaves`, 303);
    },
  );

  app.post('/desenvolvedores/webhooks', guard('owner', { body: EndpointBody }), async (request, reply) => {
    const { storeId } = member(request);
    const { mode } = request.body;
    const url = request.body.url.trim();
    const events = list(request.body.events);
    const refuse = (message: string) => show(request, reply, { errors: { webhooks: message }, url }, 400);
    const check = checkWebhookUrl(url, { allowedHosts: config.webhookAllowedHosts });
    if (!check.ok) return refuse(`Endereço recusado: ${URL_REFUSALS[check.rule]}.`);
    if (mode !== 'test' && mode !== 'live') return refuse('Escolha o modo: Teste ou Produção.');
    if (events.length === 0 || !events.every(isEventType)) return refuse('Escolha ao menos um evento.');
    try {
      const { row, secret } = await db.transaction().execute(async (trx) => {
        const created = await createEndpoint(
          trx,
          secretBox,
          { storeId, livemode: mode === 'live' },
          { url, events },
        );
        await auditRequest(trx, request, 'webhook_created', `${url} (${events.join(', ')})`);
        return created;
      });
      return showEndpoint(request, reply, row.id, { secret });
    } catch (error) {
      if (!(error instanceof WebhookRuleError)) throw error;
      return refuse('A loja já tem o máximo de 10 endpoints.');
    }
  });

  app.get(
    '/desenvolvedores/webhooks/:id',
    guard('owner', { params: IdParams, querystring: NoticeQuery }),
    async (request, reply) =>
      showEndpoint(request, reply, request.params.id, { notice: noticeOf(NOTICES, request.query.aviso) }),
  );

  const inactive = 'Este endpoint não está ativo; só endpoints ativos recebem entregas.';

  app.post(
    '/desenvolvedores/webhooks/:id/teste',
    guard('owner', { params: IdParams, body: CsrfBody }),
    async (request, reply) => {
      const row = await endpointOr404(request, request.params.id);
      try {
        await queueTestEvent(db, row, auditingRequest(request, 'webhook_tested', row.url));
      } catch (error) {
        if (!(error instanceof WebhookRuleError)) throw error;
        return showEndpoint(request, reply, row.id, { error: inactive }, 400);
      }
      return reply.redirect(`${PATH}/webhooks/${row.id}?aviso=teste`, 303);
    },
  );

  app.post(
    '/desenvolvedores/webhooks/:id/entregas/:delivery/reenviar',
    guard('owner', { params: DeliveryParams, body: CsrfBody }),
    async (request, reply) => {
      const row = await endpointOr404(request, request.params.id);
      const delivery = await findDelivery(db, row, request.params.delivery);
      if (!delivery) throw new DashboardError(404, 'Entrega não encontrada.');
      try {
        const detail = `${row.url} (${delivery.event_id})`;
        await retryDelivery(db, row, delivery, auditingRequest(request, 'webhook_retried', detail));
      } catch (error) {
        if (!(error instanceof WebhookRuleError)) throw error;
        return showEndpoint(request, reply, row.id, { error: inactive }, 400);
      }
      return reply.redirect(`${PATH}/webhooks/${row.id}?aviso=reenvio`, 303);
    },
  );

  app.post(
    '/desenvolvedores/webhooks/:id/rotacionar',
    guard('owner', { params: IdParams, body: CsrfBody }),
    async (request, reply) => {
      const current = await endpointOr404(request, request.params.id);
      const { secret } = await db.transaction().execute(async (trx) => {
        const rotated = await rotateEndpointSecret(trx, current, DEFAULT_ROTATION_OVERLAP_HOURS, secretBox);
        await auditRequest(trx, request, 'webhook_secret_rotated', current.url);
        return rotated;
      });
      return showEndpoint(request, reply, current.id, { secret });
    },
  );

  app.get(
    '/desenvolvedores/eventos',
    guard('owner', { querystring: EventsQuery }),
    async (request, reply) => {
      const { storeId } = member(request);
      const { tipo: typed, antes: before } = request.query;
      const type =
        typed && (isEventType(typed) || typed === 'webhook.test') ? (typed as AnyEventType) : undefined;
      const page = await storeEvents(db, storeId, { type, before });
      return sendPage(request, reply, services, {
        title: 'Registro de eventos',
        nav: 'developers',
        body: <EventsLog page={page} type={type} />,
      });
    },
  );
});
