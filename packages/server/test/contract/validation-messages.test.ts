import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { resolver } from './arbitraries.js';
import type { Schema } from './arbitraries.js';

/**
 * Every enum and pattern of the description, broken on purpose: the answer names the field and says
 * what is allowed in the API's words, never the schema's (a regular expression, "constant",
 * "allowed values", "must match").
 */

const DOCUMENT: Schema = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../../docs/openapi.json', import.meta.url)), 'utf8'),
);
const resolve = resolver(DOCUMENT);
const SCHEMA_WORDS = /constant|allowed values|must match|pattern|\bschema\b|must NOT|\^\[/;

/** A value of the right length that the pattern refuses, so the pattern is what fails. */
function breaking(schema: Schema): string {
  const regex = new RegExp(schema.pattern, 'u');
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 1000;
  const candidates = [' ', '   ', '!!!', '#zz', 'A B!', '!'.repeat(Math.max(min, 3)), 'ftp://x', 'a\u0000'];
  const value = candidates.find((c) => c.length >= min && c.length <= max && !regex.test(c));
  if (value === undefined) throw new Error(`no breaking value for ${schema.pattern}`);
  return value;
}

interface Violation {
  field: string;
  value: unknown;
  pattern?: string;
}

/** Each enum and pattern field of a body schema, with a value that breaks it. */
function bodyViolations(schema: Schema, prefix: string[] = []): Violation[] {
  const node = resolve(schema);
  const out: Violation[] = [];
  for (const [name, raw] of Object.entries<Schema>(node.properties ?? {})) {
    const property = resolve(raw);
    const field = [...prefix, name];
    if (Array.isArray(property.enum)) out.push({ field: field.join('.'), value: 'not_a_value' });
    if (typeof property.pattern === 'string')
      out.push({ field: field.join('.'), value: breaking(property), pattern: property.pattern });
    const items = property.items ? resolve(property.items) : null;
    if (items && Array.isArray(items.enum))
      out.push({ field: `${field.join('.')}.0`, value: ['not_a_value'] });
    if (property.properties) out.push(...bodyViolations(property, field));
  }
  return out;
}

function withField(base: unknown, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone((base ?? {}) as Record<string, unknown>);
  let node = copy;
  for (const key of path.slice(0, -1)) {
    node[key] = typeof node[key] === 'object' && node[key] !== null ? node[key] : {};
    node = node[key] as Record<string, unknown>;
  }
  node[path.at(-1)!] = value;
  return copy;
}

const cases: Array<{
  name: string;
  method: string;
  path: string;
  query?: string;
  body?: unknown;
  field: string;
  pattern?: string;
}> = [];
for (const [template, item] of Object.entries<Schema>(DOCUMENT.paths)) {
  for (const [method, op] of Object.entries<Schema>(item)) {
    // Validation comes before existence, so any well-formed id reaches it.
    const path = template.replace(/\{[^}]+\}/g, () => randomUUID());
    const queryParameters = (op.parameters ?? []).filter((p: Schema) => p.in === 'query');
    // The other required parameters, well formed, so the broken one is the error answered.
    const requiredBesides = (name: string) =>
      queryParameters
        .filter((p: Schema) => p.required && p.name !== name)
        .map((p: Schema) => `&${p.name}=${encodeURIComponent(String(resolve(p.schema).example ?? 1))}`)
        .join('');
    for (const parameter of queryParameters) {
      const schema = resolve(parameter.schema);
      if (Array.isArray(schema.enum))
        cases.push({
          name: `${method} ${template} ?${parameter.name} enum`,
          method,
          path,
          query: `${parameter.name}=not_a_value${requiredBesides(parameter.name)}`,
          field: parameter.name,
        });
      if (typeof schema.pattern === 'string')
        cases.push({
          name: `${method} ${template} ?${parameter.name} pattern`,
          method,
          path,
          query: `${parameter.name}=${encodeURIComponent(breaking(schema))}${requiredBesides(parameter.name)}`,
          field: parameter.name,
          pattern: schema.pattern,
        });
    }
    const content = op.requestBody?.content?.['application/json'];
    if (!content) continue;
    for (const violation of bodyViolations(content.schema)) {
      const field = violation.field.split('.');
      const body = Array.isArray(violation.value)
        ? withField(content.example, field.slice(0, -1), violation.value)
        : withField(content.example, field, violation.value);
      cases.push({
        name: `${method} ${template} ${violation.field}`,
        method,
        path,
        body,
        field: violation.field,
        ...(violation.pattern ? { pattern: violation.pattern } : {}),
      });
    }
  }
}

describeEachDatabase('validation messages in the API’s words', (api) => {
  it('covers the enums and patterns of the description', () => {
    const fields = cases.map((c) => c.field);
    expect(fields).toEqual(
      expect.arrayContaining(['settings_json.checkout_fundo_tipo', 'status', 'type', 'events.0', 'name']),
    );
  });

  for (const c of cases) {
    it(c.name, async () => {
      const { key } = await api.createStore();
      const res = await api.request(c.method.toUpperCase(), c.query ? `${c.path}?${c.query}` : c.path, {
        key,
        ...(c.body === undefined ? {} : { body: c.body }),
      });
      const error = expectError(res, 400, 'invalid_request', c.field);
      expect(error.message).not.toMatch(SCHEMA_WORDS);
      if (c.pattern) expect(error.message).not.toContain(c.pattern);
    });
  }

  it('says what is allowed', async () => {
    const { key } = await api.createStore();
    const as = api.as(key);
    const tipo = await as.post('/checkouts', {
      name: 'X',
      settings_json: { checkout_fundo_tipo: 'gradient' },
    });
    expect(expectError(tipo, 400, 'invalid_request').message).toBe(
      "Invalid parameter settings_json.checkout_fundo_tipo: unknown value 'gradient'; must be one of cor, imagem, gradiente.",
    );
    expect(expectError(await as.get('/payments/pix?status=cancelled'), 400, 'invalid_request').message).toBe(
      "Invalid query parameter status: unknown value 'cancelled'; must be one of pending, paid, expired, canceled.",
    );
    expect(expectError(await as.post('/checkouts', { name: '   ' }), 400, 'invalid_request').message).toBe(
      'Invalid parameter name: must not be blank.',
    );
    const events = await as.post('/webhooks', { url: 'https://example.com/h', events: ['pix.pago'] });
    expect(expectError(events, 400, 'invalid_request', 'events.0').message).toMatch(
      /^Invalid parameter events\.0: unknown value 'pix\.pago'; must be one of checkout\.created, .*pix\.paid/,
    );
    expect(expectError(await as.post('/payments/pix', ['x']), 400, 'invalid_request', null).message).toBe(
      'The request body must be a JSON object.',
    );
    expect(
      expectError(await as.post('/payments/pix', { amount: 'x' }), 400, 'invalid_request', 'amount').message,
    ).toBe('Invalid parameter amount: must be a number.');
  });
});
