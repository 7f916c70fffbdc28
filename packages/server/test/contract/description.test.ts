import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/api-keys/scopes.js';
import { serializeOpenapi } from '../../src/platform/http/openapi.js';
import { ContractValidator, ContractViolation } from '../support/contract.js';
import { TestApi } from '../support/test-api.js';

type Json = Record<string, any>;

const COMMITTED = fileURLToPath(new URL('../../../../docs/openapi.json', import.meta.url));

/** Statuses every authenticated operation can give, whatever it does. */
const ALWAYS = ['401', '403', '429', '500'];

function operationsOf(document: Json): Array<{ method: string; path: string; op: Json; id: string }> {
  return Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      op,
      id: `${method.toUpperCase()} ${path}`,
    })),
  );
}

/** Object schemas in a request body that accept undeclared fields (free-form maps excepted). */
function openObjects(schema: Json, at: string, out: string[] = []): string[] {
  if (typeof schema !== 'object' || schema === null) return out;
  if (schema.properties && schema.additionalProperties !== false) out.push(at || '(body)');
  for (const [key, value] of Object.entries<Json>(schema.properties ?? {}))
    openObjects(value, `${at}.${key}`, out);
  if (schema.items) openObjects(schema.items, `${at}[]`, out);
  for (const member of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) {
    openObjects(member, at, out);
  }
  return out;
}

describe('the OpenAPI description', () => {
  const api = new TestApi('sqlite');
  let document: Json;
  let served: string;

  beforeAll(async () => {
    await api.start();
    const res = await api.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    document = res.body;
    served = res.text;
    return () => api.stop();
  });

  it('is OpenAPI 3.1, version 1.3.0, served under /api/public/v1 with bearer auth', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.3.0');
    expect(document.servers).toEqual([{ url: '/api/public/v1', description: expect.any(String) }]);
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.components.schemas.ErrorEnvelope).toBeDefined();
  });

  it('the committed docs/openapi.json is the served document (run `npm run openapi:write`)', () => {
    const committed = readFileSync(COMMITTED, 'utf8');
    expect(
      serializeOpenapi(JSON.parse(served)),
      'docs/openapi.json is stale: run npm run openapi:write',
    ).toBe(committed);
  });

  it('every operation has an id, a summary, a described tag and the scope it requires', () => {
    const ids = new Set<string>();
    const tags = new Set(document.tags.map((t: Json) => t.name));
    for (const { op, id } of operationsOf(document)) {
      expect(op.operationId, `${id}: operationId`).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(ids.has(op.operationId), `${id}: duplicate operationId ${op.operationId}`).toBe(false);
      ids.add(op.operationId);
      expect(op.summary, `${id}: summary`).toBeTruthy();
      expect(op.tags?.length, `${id}: tags`).toBeGreaterThan(0);
      for (const tag of op.tags) expect(tags.has(tag), `${id}: tag ${tag} is not described`).toBe(true);
      expect(SCOPES, `${id}: x-required-scope`).toContain(op['x-required-scope']);
      expect(op.security, `${id}: security`).toEqual([{ bearerAuth: [op['x-required-scope']] }]);
      expect(op.description, `${id}: description names the scope`).toContain(`\`${op['x-required-scope']}\``);
    }
  });

  it('every operation documents its error statuses with the error envelope', () => {
    for (const { method, path, op, id } of operationsOf(document)) {
      const statuses = Object.keys(op.responses);
      const expected = [...ALWAYS];
      if (op.requestBody || (op.parameters ?? []).some((p: Json) => p.in === 'query')) expected.push('400');
      if (path.includes('{')) expected.push('404');
      if ((op.parameters ?? []).some((p: Json) => p.$ref === '#/components/parameters/IdempotencyKey')) {
        expected.push('409');
      }
      if (method !== 'GET') expected.push('413');
      for (const status of expected) expect(statuses, `${id}: status ${status}`).toContain(status);
      expect(
        statuses.some((s) => s.startsWith('2')),
        `${id}: a 2xx response`,
      ).toBe(true);
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        expect(op.responses[status].content['application/json'].schema, `${id} ${status}`).toEqual({
          $ref: '#/components/schemas/ErrorEnvelope',
        });
        expect(op.responses[status].description, `${id} ${status}: description`).not.toBe('Default Response');
      }
    }
  });

  it('every creation that accepts Idempotency-Key says so (POST /checkouts, /products, /webhooks, /payments/pix)', () => {
    for (const [path, scope] of [
      ['/checkouts', 'createCheckout'],
      ['/products', 'createProduct'],
      ['/webhooks', 'createWebhookEndpoint'],
      ['/payments/pix', 'createPixCharge'],
    ] as const) {
      const op = document.paths[path]?.post;
      if (!op) continue; // not built yet
      expect(op.operationId).toBe(scope);
      expect(op.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    }
  });

  it('every request body rejects unknown fields, at every level', () => {
    for (const { op, id } of operationsOf(document)) {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema) continue;
      expect(openObjects(schema, ''), `${id}: objects without additionalProperties: false`).toEqual([]);
    }
  });

  it('every parameter has a schema, and query parameters carry their bounds', () => {
    for (const { op, id } of operationsOf(document)) {
      for (const parameter of op.parameters ?? []) {
        if (parameter.$ref) continue;
        const where = `${id} ${parameter.in} ${parameter.name}`;
        expect(parameter.schema, where).toBeDefined();
        if (parameter.in !== 'query') continue;
        const { type, enum: values } = parameter.schema;
        if (values) continue;
        if (type === 'integer' || type === 'number') {
          expect(parameter.schema.minimum, `${where}: minimum`).toBeDefined();
          expect(parameter.schema.maximum, `${where}: maximum`).toBeDefined();
        }
        if (type === 'string') expect(parameter.schema.maxLength, `${where}: maxLength`).toBeDefined();
      }
      const limit = (op.parameters ?? []).find((p: Json) => p.name === 'limit');
      if (limit)
        expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    }
  });

  it('every resource component has an example that validates against it, and so do 2xx and body examples', () => {
    const validator = new ContractValidator(document);
    let checked = 0;
    for (const [name, schema] of Object.entries<Json>(document.components.schemas)) {
      expect(schema.examples?.length, `${name}: examples`).toBeGreaterThan(0);
      const errors = validator.validate(
        `component ${name}`,
        { $ref: `#/components/schemas/${name}` },
        schema.examples[0],
      );
      expect(errors, `${name} example`).toBeNull();
      checked += 1;
    }
    for (const { op, id } of operationsOf(document)) {
      const media = [
        ...Object.entries<Json>(op.responses).map(([status, r]) => [status, r.content?.['application/json']]),
        ['body', op.requestBody?.content?.['application/json']],
      ] as Array<[string, Json | undefined]>;
      for (const [where, m] of media) {
        if (!m || !('example' in m)) continue;
        const errors = validator.validate(`example ${id} ${where}`, m.schema, m.example);
        expect(errors, `${id} ${where} example`).toBeNull();
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});

describe('the contract validator', () => {
  const document: Json = JSON.parse(readFileSync(COMMITTED, 'utf8'));
  const validator = new ContractValidator(document);
  const base = 'http://127.0.0.1:1/api/public/v1';
  const json = new Headers({ 'content-type': 'application/json; charset=utf-8' });
  const response = (status: number, body: unknown) => ({
    status,
    headers: json,
    body,
    text: JSON.stringify(body),
  });
  const envelope = {
    error: { code: 'not_found', message: 'No such checkout.', param: null, request_id: 'req_x' },
  };

  it('accepts documented answers, success and error', () => {
    const checkout = document.components.schemas.Checkout.examples[0];
    expect(() => validator.check('GET', `${base}/checkouts/abc`, response(200, checkout))).not.toThrow();
    expect(() => validator.check('GET', `${base}/checkouts/abc`, response(404, envelope))).not.toThrow();
    expect(() => validator.check('GET', `${base}/nothing`, response(404, envelope))).not.toThrow();
  });

  it('names the method, the route and the status when a status is not documented', () => {
    expect(() => validator.check('GET', `${base}/checkouts/abc?x=1`, response(418, envelope))).toThrow(
      /GET \/checkouts\/\{id\} answered 418: status 418 is not documented/,
    );
  });

  it('names the field when a body does not match', () => {
    const checkout = structuredClone(document.components.schemas.Checkout.examples[0]);
    checkout.settings_json.checkout_fundo_cor = 'red';
    delete checkout.name;
    const call = () => validator.check('POST', `${base}/checkouts`, response(201, checkout));
    expect(call).toThrow(ContractViolation);
    expect(call).toThrow(/POST \/checkouts answered 201: .*body\.name is required/);
    expect(call).toThrow(/body\.settings_json\.checkout_fundo_cor must match pattern/);
    expect(() =>
      validator.check('GET', `${base}/checkouts`, response(400, { error: { code: 'invalid_request' } })),
    ).toThrow(/GET \/checkouts answered 400: body\.error\.message is required/);
  });

  it('prefers a static segment to a parameter, as the router does', () => {
    if (!document.paths['/payments/pix/external/{externalId}']) return;
    expect(validator.find('GET', '/payments/pix/external/abc')?.path).toBe(
      '/payments/pix/external/{externalId}',
    );
    expect(validator.find('GET', '/payments/pix/pix_abc')?.path).toBe('/payments/pix/{id}');
  });
});
