import { createHash } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ErrorEnvelope } from './schemas.js';

export const API_PREFIX = '/api/public/v1';
/** The description's `info.version`; the docs page names it too. */
export const API_VERSION = '1.3.0';

/**
 * The OpenAPI 3.1 document (version 1.3.0; every 1.0.0, 1.1.0 and 1.2.0 request and answer stays valid), generated from the route schemas, the single
 * source of validation, types and documentation. The route schemas say what each operation takes
 * and answers; this plugin adds, once for every route present and future, what the shared machinery
 * does to all of them:
 *
 * - the required scope (`config.scope`) as the bearer requirement's role, `x-required-scope` and a
 *   sentence of the description; `config.public` routes get `security: []`;
 * - the error statuses the plugins can answer (401/403/429/500/503 on authenticated routes, 400 and 413
 *   where a body or query string is read, 404 for path ids, 409 and the `Idempotency-Key` header on
 *   idempotent creations), each with the ErrorEnvelope component and a description;
 * - resource schemas that carry a TypeBox `$id` become `components.schemas` entries referenced by
 *   `$ref`, each with a generated example that is also used by the 2xx responses and request bodies;
 * - a stable order (paths, methods, statuses, components sorted), so the committed copy diffs well.
 *
 * Routes outside the v1 prefix (health, the docs page) are not part of the API and are left out.
 */

type Json = Record<string, unknown>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Headers an operation adds to some answers, documented in the description: status → name → meaning. */
    responseHeaders?: Record<string, Record<string, string>>;
  }
}

interface OperationMeta {
  method: string;
  scope: string | undefined;
  public: boolean;
  idempotent: boolean;
  /** Fastify parses a body for these methods even when the route declares none (400/413). */
  readsBody: boolean;
  hasQuery: boolean;
  hasPathParams: boolean;
  responseHeaders: Record<string, Record<string, string>>;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const METHOD_ORDER = ['get', 'post', 'put', 'patch', 'delete'];
const COMPONENTS = '#/components/schemas/';
const ERROR_REF = { $ref: `${COMPONENTS}ErrorEnvelope` };

export const TAG_DESCRIPTIONS: Record<string, string> = {
  Checkouts: 'The visual configuration of purchase pages. Each store has exactly one default checkout.',
  Products: 'The store catalogue.',
  'Webhook endpoints':
    'HTTPS endpoints that receive signed event notifications (`Service-Signature: t=…,v1=…`), and their delivery history.',
  Events: 'The events the service records and delivers to webhook endpoints.',
  'Pix charges':
    'Instant-payment charges with a BR Code (copy and paste) and its QR code. Test keys (`sk_test_`) simulate payments.',
  'Card payments':
    'Credit cards in up to 12 installments through the store’s own Mercado Pago or Pagar.me account (API 1.3.0). The card number never reaches the service: the PSP’s script in the buyer’s browser gives a single-use token. Test keys without a test PSP use simulated tokens (docs/cards.md).',
  Sales: 'Sales, created when a charge is paid.',
  Orders:
    'Orders buyers place on the hosted purchase pages (API 1.2.0): what they chose, where they came from (`tracking`), and whether they paid, were abandoned or recovered.',
  Store: 'The store the API key belongs to, and its settings (API 1.2.0).',
  Analytics:
    'A store’s funnel per day in its time zone: purchase-page views, orders, paid orders, sales, refunds (docs/analytics.md).',
  Subscriptions:
    'Recurring products sold through Pix Automático (API 1.2.0): the buyer pays the first cycle and authorises the rest with one QR; later cycles are billed by the store through its PSP. Test keys simulate renewals, failures and cancellations.',
};

const ERROR_DESCRIPTIONS: Record<string, string> = {
  '400':
    '`invalid_request`: an invalid body, field or query parameter, an unknown field or query parameter, a JSON body nested deeper than 32 levels or holding more than 20,000 values and keys, an invalid cursor, or a request the resource rules refuse. `param` names the offending field when there is one. `provider_not_configured` (live keys): the store has no live Pix provider (or, for a subscription, its provider has no receiving account; for a card payment, no live card provider); not transient, do not retry.',
  '401': '`unauthorized`: the API key is missing, malformed, invalid or revoked.',
  '403': '`insufficient_scope`: the API key lacks the scope this operation requires.',
  '404':
    '`not_found`: no such resource in the caller’s store (a malformed id, an unknown id and another store’s resource answer alike).',
  '409':
    '`idempotency_conflict`: this `Idempotency-Key` was used with another body or path, or its first request is still running.',
  '413': '`payload_too_large`: the request body is larger than 1 MiB.',
  '429':
    '`rate_limited`: too many requests for this API key, or too many failed authentications (wrong API keys) from this address; retry after `Retry-After` seconds.',
  '500': '`internal_error`: a failure on the service side. A retry with the same `Idempotency-Key` is safe.',
  '502':
    '`provider_error`: the PSP failed (5xx, timeout, refused TLS or credentials, or a problem it reported); the message names what it said and nothing was written. Retryable (with the same `Idempotency-Key`).',
  '503':
    'The service is unavailable for now: `service_unavailable` while its database is unreachable (retry after `Retry-After` seconds).',
  '504': 'An upstream timeout; retryable.',
};

const SUCCESS_TEXT: Record<string, string> = {
  '200': 'OK.',
  '201': 'Created.',
  '202': 'Accepted.',
  '204': 'No content.',
};

const HEADERS: Record<string, Json> = {
  RequestId: {
    description: 'Identifies this request (`req_…`); the same value is in `error.request_id`.',
    schema: { type: 'string', example: 'req_8mZ0b2kqP1sXw4TnYc7H' },
  },
  RateLimitLimit: {
    description: 'Requests per second allowed for this API key.',
    schema: { type: 'integer' },
  },
  RateLimitRemaining: { description: 'Requests left in the current window.', schema: { type: 'integer' } },
  RateLimitReset: { description: 'Seconds until the window resets.', schema: { type: 'integer' } },
  RetryAfter: { description: 'Whole seconds to wait before retrying.', schema: { type: 'integer' } },
  WWWAuthenticate: { description: '`Bearer realm="storefront"`.', schema: { type: 'string' } },
  IdempotentReplayed: {
    description:
      '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
};

const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes the creation safe to retry: kept 24 hours per store and mode (a key sent with a test API key and the same key sent with a live one are two keys: an answer is never replayed in the other mode). The same key with the same method, path and body replays the first answer (`Idempotent-Replayed: true`); with another body or path, or while the first request runs, it answers 409 `idempotency_conflict`. 5xx answers are not kept.',
  schema: { type: 'string', minLength: 1, maxLength: 255, example: '5f0c7a2e-8d1b-4e63-9a7f-2b4c6d8e0a13' },
};

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `/checkouts/:id` → `/checkouts/{id}`, relative to the server URL. */
export function openapiPath(url: string): string {
  const relative = url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url;
  return relative.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/**
 * A plain-JSON copy of a TypeBox schema (symbols dropped) where every nested schema with an `$id`
 * becomes a `$ref` to a component, collected into `components` for the final document.
 */
function hoistIds(node: unknown, components: Map<string, Json>): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistIds(item, components));
  if (!isObject(node)) return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$id') continue;
    copy[key] = hoistIds(value, components);
  }
  const id = node.$id;
  if (typeof id !== 'string') return copy;
  const existing = components.get(id);
  if (existing && JSON.stringify(existing) !== JSON.stringify(copy)) {
    throw new Error(`two different schemas share the $id "${id}"`);
  }
  components.set(id, copy);
  return { $ref: `${COMPONENTS}${id}` };
}

/** Rewrites every schema node in place: `const` → `enum`, unions of single literals → one `enum`. */
function normalizeSchemas(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) normalizeSchemas(item);
    return;
  }
  if (!isObject(node)) return;
  for (const value of Object.values(node)) normalizeSchemas(value);
  if ('const' in node && !('enum' in node)) {
    node.enum = [node.const];
    delete node.const;
  }
  const anyOf = node.anyOf;
  if (Array.isArray(anyOf) && anyOf.length > 0) {
    const literals = anyOf.every(
      (member) =>
        isObject(member) &&
        Object.keys(member).every((key) => key === 'type' || key === 'enum') &&
        typeof member.type === 'string' &&
        member.type === (anyOf[0] as Json).type &&
        Array.isArray(member.enum),
    );
    if (literals) {
      delete node.anyOf;
      node.type = (anyOf[0] as Json).type;
      node.enum = anyOf.flatMap((member) => (member as Json).enum as unknown[]);
    }
  }
}

// --- Examples -----------------------------------------------------------------------------------

/** Realistic values by field name, used (before a schema's own example) when they fit the field's schema. */
const NAMED_SAMPLES: Record<string, unknown> = {
  name: 'Checkout Black Friday',
  nome: 'Curso de Violão',
  slug: 'curso-de-violao',
  descricao: 'Do zero ao primeiro show em 8 semanas.',
  imagem: 'https://cdn.loja.example.com.br/violao.png',
  preco: 197.9,
  ativo: true,
  link_acesso: 'https://membros.loja.example.com.br/violao',
  garantia: 'Garantia de 7 dias',
  order_bump_title: 'Apostila de acordes',
  order_bump_description: 'Leve também a apostila em PDF.',
  delivery_email_subject: 'Seu acesso ao Curso de Violão',
  delivery_email_body: 'Olá! Seu acesso está em https://membros.loja.example.com.br/violao.',
  checkout_titulo: 'Finalize sua compra',
  checkout_garantia: 'Garantia de 7 dias',
  checkout_subtitulo: 'Pagamento instantâneo com Pix',
  url: 'https://loja.example.com.br/webhooks/storefront',
  description: 'Pedido 1042',
  amount: 49.9,
  external_id: 'pedido-1042',
  email: 'maria@example.com.br',
  whatsapp: '+5511987654321',
  document: '12345678909',
  expires_in: 3600,
  attempt: 1,
  response_status: 200,
  copy_paste:
    '00020101021226830014br.gov.bcb.pix2561qrcodes.example.com.br/v2/cobv/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5913LOJA EXEMPLO6009SAO PAULO62070503***6304E2CA',
  qr_code_base64:
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==',
  txid: '9d36b84fc70b478fb95c12729b90ca25',
  metadata: { pedido: '1042' },
  event_id: 'evt_8mZ0b2kqP1sXw4TnYc7H1aQe',
  event_type: 'pix.paid',
  delivery_id: 'whd_3k9VqR2mXbT7pLw0sYc4NnHd',
  // A fresh pending charge, a first attempt that succeeded, an approved sale.
  paid_at: null,
  failed_at: null,
  next_retry_at: null,
  refunded_at: null,
  expires_at: '2026-11-22T11:00:00.000Z',
};

const SAMPLE_TIME = '2026-11-22T10:00:00.000Z';

function sampleUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A small structural check, enough to decide whether a named sample fits a field. */
function fits(schema: Json, value: unknown, resolve: (ref: string) => Json | undefined): boolean {
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref);
    return target ? fits(target, value, resolve) : false;
  }
  if (Array.isArray(schema.enum)) return schema.enum.includes(value);
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((member) => fits(member as Json, value, resolve));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  const typeOf =
    value === null
      ? 'null'
      : Array.isArray(value)
        ? 'array'
        : typeof value === 'number' && Number.isInteger(value)
          ? 'integer'
          : typeof value;
  const typeOk =
    types[0] === undefined ||
    types.includes(typeOf) ||
    (typeOf === 'integer' && types.includes('number')) ||
    (typeOf === 'number' && types.includes('number'));
  if (!typeOk) return false;
  if (typeof value === 'string') {
    if (typeof schema.maxLength === 'number' && [...value].length > schema.maxLength) return false;
    if (typeof schema.minLength === 'number' && [...value].length < schema.minLength) return false;
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) return false;
    if (schema.format === 'uuid' || schema.format === 'date-time') return false;
    if ((schema.format === 'uri' || schema.format === 'url') && !/^https?:\/\//.test(value)) return false;
    if (schema.format === 'email' && !value.includes('@')) return false;
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) return false;
    if (typeof schema.maximum === 'number' && value > schema.maximum) return false;
  }
  if (Array.isArray(value) && isObject(schema.items)) {
    return value.every((item) => fits(schema.items as Json, item, resolve));
  }
  if (isObject(value) && isObject(schema.properties)) {
    return Object.entries(value).every(([key, item]) => {
      const property = (schema.properties as Json)[key];
      return isObject(property) ? fits(property, item, resolve) : schema.additionalProperties !== false;
    });
  }
  return true;
}

function stringSample(schema: Json, name: string, path: string): string {
  if (schema.format === 'uuid') return sampleUuid(path);
  if (schema.format === 'date-time') return SAMPLE_TIME;
  if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com.br';
  if (schema.format === 'email') return 'maria@example.com.br';
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : null;
  const prefix = typeof schema.pattern === 'string' ? /^\^([a-z]+_)/.exec(schema.pattern)?.[1] : undefined;
  const candidates = [
    prefix ? `${prefix}8mZ0b2kqP1sXw4TnYc7H3vLd` : undefined,
    name,
    name.replace(/_/g, '-'),
    'exemplo',
    'https://example.com.br/imagem.png',
    '#F5F5F5',
    'a',
  ].filter((c): c is string => c !== undefined);
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  for (const candidate of candidates) {
    const length = [...candidate].length;
    if (length >= min && length <= max && (!pattern || pattern.test(candidate))) return candidate;
  }
  return 'x'.repeat(Math.max(1, min));
}

/**
 * An example value for a schema: a realistic sample by field name when it fits, else the schema's own
 * `examples`/`example`/`default`, else one built from the type, format and bounds. `full` includes
 * optional properties (response objects); otherwise only required ones and those with a sample.
 */
export function exampleOf(
  schema: Json,
  resolve: (ref: string) => Json | undefined,
  options: { name?: string; path?: string; full: boolean; depth?: number },
): unknown {
  const name = options.name ?? '';
  const path = options.path ?? name;
  const depth = options.depth ?? 0;
  if (depth > 12) return null;
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref);
    return target ? exampleOf(target, resolve, { ...options, depth: depth + 1 }) : null;
  }
  if (name in NAMED_SAMPLES && fits(schema, NAMED_SAMPLES[name], resolve)) return NAMED_SAMPLES[name];
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if ('default' in schema) return schema.default;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = schema[key];
    if (Array.isArray(members) && members.length > 0) {
      const member = (members as Json[]).find((m) => m.type !== 'null') ?? (members[0] as Json);
      return exampleOf(member, resolve, { ...options, depth: depth + 1 });
    }
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
  const nullable = types.includes('null');
  const type = types.find((t) => t !== 'null');
  // A nullable field with no realistic sample reads best as null.
  if (nullable && !(name in NAMED_SAMPLES)) return null;
  switch (type) {
    case 'object': {
      const out: Json = {};
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
      for (const [key, property] of Object.entries(properties)) {
        if (!isObject(property)) continue;
        const include = options.full || required.has(key) || (key in NAMED_SAMPLES && depth === 0);
        if (!include) continue;
        out[key] = exampleOf(property, resolve, {
          ...options,
          name: key,
          path: `${path}.${key}`,
          depth: depth + 1,
        });
      }
      return out;
    }
    case 'array': {
      const items = isObject(schema.items) ? schema.items : {};
      const count = Math.max(1, typeof schema.minItems === 'number' ? schema.minItems : 1);
      const item = exampleOf(items, resolve, { ...options, path: `${path}[]`, depth: depth + 1 });
      return Array.from({ length: count }, () => item);
    }
    case 'string':
      return stringSample(schema, name, path);
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
      const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
      return Math.min(Math.max(min, type === 'integer' ? 1 : 10), max);
    }
    case 'boolean':
      return false;
    default:
      return nullable ? null : {};
  }
}

// --- The document ---------------------------------------------------------------------------------

function sortedObject<T>(
  object: Record<string, T>,
  compare?: (a: string, b: string) => number,
): Record<string, T> {
  return Object.fromEntries(
    Object.entries(object).sort(([a], [b]) => (compare ? compare(a, b) : a < b ? -1 : 1)),
  );
}

function componentName(ref: unknown): string | undefined {
  return typeof ref === 'string' && ref.startsWith(COMPONENTS) ? ref.slice(COMPONENTS.length) : undefined;
}

function successDescription(status: string, schema: Json | undefined): string {
  const item = componentName(schema?.$ref);
  if (item) return `The ${item.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}.`;
  const properties = isObject(schema?.properties) ? schema.properties : undefined;
  const listItem =
    isObject(properties?.data) && isObject(properties.data.items) ? properties.data.items : undefined;
  const listed = componentName(listItem?.$ref);
  if (listed && isObject(properties?.object)) {
    return `A page of ${listed.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()} objects, newest first.`;
  }
  return SUCCESS_TEXT[status] ?? 'Success.';
}

function headerRefs(names: string[]): Json {
  const map: Record<string, string> = {
    RequestId: 'Request-Id',
    RateLimitLimit: 'RateLimit-Limit',
    RateLimitRemaining: 'RateLimit-Remaining',
    RateLimitReset: 'RateLimit-Reset',
    RetryAfter: 'Retry-After',
    WWWAuthenticate: 'WWW-Authenticate',
    IdempotentReplayed: 'Idempotent-Replayed',
  };
  return Object.fromEntries(names.map((name) => [map[name], { $ref: `#/components/headers/${name}` }]));
}

function describeOperation(
  operation: Json,
  meta: OperationMeta,
  resolve: (ref: string) => Json | undefined,
  path: string,
): void {
  const responses = (isObject(operation.responses) ? operation.responses : {}) as Record<string, Json>;
  const implied = new Set<string>();
  if (!meta.public) ['401', '403', '429', '500', '503'].forEach((s) => implied.add(s));
  if (meta.readsBody) ['400', '413'].forEach((s) => implied.add(s));
  if (meta.hasQuery) implied.add('400');
  if (meta.hasPathParams) implied.add('404');
  if (meta.idempotent) ['400', '409'].forEach((s) => implied.add(s));
  for (const status of implied) {
    responses[status] ??= { description: '', content: { 'application/json': { schema: { ...ERROR_REF } } } };
  }

  for (const [status, response] of Object.entries(responses)) {
    const media = isObject(response.content)
      ? (response.content['application/json'] as Json | undefined)
      : undefined;
    const schema = isObject(media?.schema) ? media.schema : undefined;
    const error = Number(status) >= 400;
    if (!response.description || response.description === 'Default Response') {
      response.description = error
        ? (ERROR_DESCRIPTIONS[status] ?? 'An error.')
        : successDescription(status, schema);
    }
    const headers = ['RequestId'];
    if (!meta.public && status !== '401')
      headers.push('RateLimitLimit', 'RateLimitRemaining', 'RateLimitReset');
    if (status === '429' || status === '503') headers.push('RetryAfter');
    if (status === '401') headers.push('WWWAuthenticate');
    if (meta.idempotent && !error) headers.push('IdempotentReplayed');
    const own = Object.entries(meta.responseHeaders[status] ?? {}).map(([name, description]) => [
      name,
      { description, schema: { type: 'string' } },
    ]);
    response.headers = {
      ...headerRefs(headers),
      ...Object.fromEntries(own),
      ...(isObject(response.headers) ? response.headers : {}),
    };
    if (media && schema && !error && !('example' in media) && !('examples' in media)) {
      media.example = exampleOf(schema, resolve, { full: true, path: `${meta.method} ${path} ${status}` });
    }
  }
  operation.responses = sortedObject(responses, (a, b) => Number(a) - Number(b));

  const body = isObject(operation.requestBody) ? operation.requestBody : undefined;
  const bodyMedia = isObject(body?.content)
    ? (body.content['application/json'] as Json | undefined)
    : undefined;
  if (bodyMedia && isObject(bodyMedia.schema) && !('example' in bodyMedia) && !('examples' in bodyMedia)) {
    bodyMedia.example = exampleOf(bodyMedia.schema, resolve, {
      full: false,
      path: `${meta.method} ${path} body`,
    });
  }

  const parameters = Array.isArray(operation.parameters) ? (operation.parameters as Json[]) : [];
  for (const parameter of parameters) {
    if (parameter.in === 'path' && !parameter.description) {
      parameter.description =
        'The resource id. A malformed or unknown id, or the id of another store’s resource, answers 404 `not_found`.';
    }
  }
  if (meta.idempotent) parameters.push({ $ref: '#/components/parameters/IdempotencyKey' });
  if (parameters.length > 0) operation.parameters = parameters;

  const notes: string[] = [];
  if (typeof operation.description === 'string' && operation.description) notes.push(operation.description);
  if (meta.public) {
    operation.security = [];
    notes.push('No API key needed.');
  } else if (meta.scope) {
    operation.security = [{ bearerAuth: [meta.scope] }];
    operation['x-required-scope'] = meta.scope;
    notes.push(`Requires an API key with the \`${meta.scope}\` scope.`);
  }
  if (meta.idempotent) notes.push('Accepts an `Idempotency-Key` header to make retries safe.');
  if (notes.length > 0) operation.description = notes.join('\n\n');
}

function finishDocument(document: Json, metas: Map<string, OperationMeta>, hoisted: Map<string, Json>): Json {
  const components = (isObject(document.components) ? document.components : {}) as Json;
  const schemas = { ...(isObject(components.schemas) ? components.schemas : {}) } as Record<string, Json>;
  for (const [name, schema] of hoisted) schemas[name] = schema;
  normalizeSchemas(schemas);
  normalizeSchemas(document.paths);
  const resolve = (ref: string): Json | undefined => {
    const name = componentName(ref);
    return name ? schemas[name] : undefined;
  };

  // Every resource component gets an example (validated against it by the contract tests).
  for (const [name, schema] of Object.entries(schemas)) {
    if (!Array.isArray(schema.examples)) {
      schema.examples = [exampleOf(schema, resolve, { full: true, path: name })];
    }
  }

  const paths = (isObject(document.paths) ? document.paths : {}) as Record<string, Record<string, Json>>;
  const tags = new Set<string>();
  for (const [path, item] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const meta = metas.get(`${method.toUpperCase()} ${path}`);
      if (!meta || !isObject(operation)) continue;
      describeOperation(operation, meta, resolve, path);
      for (const tag of Array.isArray(operation.tags) ? (operation.tags as string[]) : []) tags.add(tag);
    }
    paths[path] = sortedObject(item, (a, b) => METHOD_ORDER.indexOf(a) - METHOD_ORDER.indexOf(b));
  }

  return {
    openapi: document.openapi,
    info: document.info,
    servers: document.servers,
    security: document.security,
    tags: [...tags].sort().map((name) => ({
      name,
      description: TAG_DESCRIPTIONS[name] ?? `${name} operations.`,
    })),
    paths: sortedObject(paths),
    components: {
      securitySchemes: components.securitySchemes,
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER },
      headers: HEADERS,
      schemas: sortedObject(schemas),
    },
  };
}

export const openapiPlugin = fp(async (app: FastifyInstance) => {
  app.addSchema(ErrorEnvelope);
  const metas = new Map<string, OperationMeta>();
  const hoisted = new Map<string, Json>();

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Storefront API',
        version: API_VERSION,
        summary: 'Commerce API for online stores selling in Brazil.',
        description: [
          'Checkouts, products, Pix charges, sales and signed webhooks for online stores selling in Brazil.',
          'Every request carries `Authorization: Bearer <API_KEY>` (`sk_test_…` or `sk_live_…`); each operation names the scope it needs. Request and response bodies are JSON; unknown fields are rejected. Errors are `{"error":{"code","message","param","request_id"}}`. Listings are cursor-paginated, newest first: pass `next_cursor` back as `starting_after`.',
          'Text anywhere in a request (fields, metadata keys and values, query parameters) must not contain NUL (U+0000) or an unpaired UTF-16 surrogate: the request is 400 `invalid_request` naming the field, and a path id holding one is 404. An operation that takes no body accepts an empty one, whatever its `Content-Type`; any body sent must be `application/json`.',
        ].join('\n\n'),
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: API_PREFIX, description: 'This service, API version 1.' }],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description:
              'An API key: `sk_test_…` (test mode, simulated charges) or `sk_live_…`. Keys carry scopes; a missing scope is 403 `insufficient_scope`.',
          },
        },
      },
      security: [{ bearerAuth: [] }],
    },
    transform: ({ schema, url, route }) => {
      // Only the versioned API is described; health checks and the docs page are not part of it.
      if (!url.startsWith(`${API_PREFIX}/`) || schema?.hide)
        return { schema: { ...schema, hide: true }, url };
      const path = openapiPath(url);
      const config = (route.config ?? {}) as {
        scope?: string;
        public?: boolean;
        idempotent?: boolean;
        responseHeaders?: Record<string, Record<string, string>>;
      };
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        metas.set(`${method.toUpperCase()} ${path}`, {
          method: method.toUpperCase(),
          scope: config.scope,
          public: config.public === true,
          idempotent: config.idempotent === true,
          readsBody: BODY_METHODS.has(method.toUpperCase()),
          hasQuery: schema?.querystring !== undefined,
          hasPathParams: path.includes('{'),
          responseHeaders: config.responseHeaders ?? {},
        });
      }
      return { schema: hoistIds(schema ?? {}, hoisted) as typeof schema, url: path };
    },
    transformObject: (documentObject) => {
      if (!('openapiObject' in documentObject)) return documentObject.swaggerObject;
      return finishDocument(
        documentObject.openapiObject as Json,
        metas,
        hoisted,
      ) as typeof documentObject.openapiObject;
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
});

/** The document, key order as generated (stable), as written to docs/openapi.json. */
export function serializeOpenapi(document: unknown): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
