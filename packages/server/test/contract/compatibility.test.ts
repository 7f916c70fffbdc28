import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Each API version only adds: every request an older client sends is still accepted, and every answer
 * still has what it reads. `api-1.0.0.json`, `api-1.1.0.json` and `api-1.2.0.json` are those
 * descriptions reduced to their schemas (operations, request bodies, query parameters, 2xx answers,
 * components); each is compared with the current `docs/openapi.json`. Enumerations may grow (a new Pix
 * status, `canceled`, appears only for charges a 1.1.0 caller canceled; `order.*` events only reach
 * endpoints that subscribe to them; a sale is `card` or `charged_back` only when paid by card).
 */
type Schema = Record<string, any>;
interface Doc {
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, Schema> };
}

const CURRENT_VERSION = '1.3.0';
const baseline = (version: string): Doc =>
  JSON.parse(readFileSync(new URL(`./api-${version}.json`, import.meta.url), 'utf8'));
const current: Doc = JSON.parse(
  readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8'),
);

const resolve = (doc: Doc, schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? doc.components.schemas[schema.$ref.split('/').pop()!] : schema;
const types = (schema: Schema): string[] => [schema.type ?? []].flat();

/** Problems found when `now` replaces `then`, for a body a client sends (`request`) or reads (`answer`). */
function compare(
  old: Doc,
  then: Schema | undefined,
  now: Schema | undefined,
  at: string,
  kind: 'request' | 'answer',
): string[] {
  const a = resolve(old, then);
  const b = resolve(current, now);
  if (!a) return [];
  if (!b) return [`${at}: gone`];
  const problems: string[] = [];
  const [narrow, wide] = kind === 'answer' ? [types(b), types(a)] : [types(a), types(b)];
  if (narrow.some((t) => !wide.includes(t))) problems.push(`${at}: type ${types(a)} became ${types(b)}`);
  if (a.enum && (!b.enum || a.enum.some((v: unknown) => !b.enum.includes(v)))) {
    problems.push(`${at}: enum ${JSON.stringify(a.enum)} lost values in ${JSON.stringify(b.enum)}`);
  }
  const required = (s: Schema) => (s.required ?? []) as string[];
  if (kind === 'answer') {
    for (const field of required(a))
      if (!required(b).includes(field)) problems.push(`${at}.${field}: no longer always sent`);
  } else {
    for (const field of required(b))
      if (!required(a).includes(field)) problems.push(`${at}.${field}: newly required`);
    if (b.minimum > a.minimum || b.maximum < a.maximum) problems.push(`${at}: range narrowed`);
    if (b.minLength > a.minLength || b.maxLength < a.maxLength) problems.push(`${at}: length narrowed`);
  }
  for (const [name, property] of Object.entries((a.properties ?? {}) as Record<string, Schema>)) {
    problems.push(...compare(old, property, b.properties?.[name], `${at}.${name}`, kind));
  }
  if (a.items) problems.push(...compare(old, a.items, b.items, `${at}[]`, kind));
  return problems;
}

describe.each(['1.0.0', '1.1.0', '1.2.0'])(
  `API ${CURRENT_VERSION} keeps every %s request and answer valid`,
  (version) => {
    const old = baseline(version);
    const operations = Object.entries(old.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );

    it('the fixture is that version’s description, and the current one is newer', () => {
      expect(operations.length).toBeGreaterThan(20);
      expect((old as Doc & { info: { version: string } }).info.version).toBe(version);
      expect(
        JSON.parse(readFileSync(new URL('../../../../docs/openapi.json', import.meta.url), 'utf8')).info
          .version,
      ).toBe(CURRENT_VERSION);
    });

    for (const { path, method, operation } of operations) {
      it(`${method.toUpperCase()} ${path} (${operation.operationId})`, () => {
        const now = current.paths[path]?.[method];
        expect(now, 'the operation still exists').toBeDefined();
        expect(now.operationId).toBe(operation.operationId);
        const problems = [
          ...compare(
            old,
            operation.requestBody,
            now.requestBody?.content['application/json'].schema,
            'body',
            'request',
          ),
          ...((operation.query ?? []) as Schema[]).flatMap((parameter) => {
            const match = (now.parameters ?? []).find(
              (p: Schema) => p.in === 'query' && p.name === parameter.name,
            );
            return match
              ? compare(old, parameter.schema, match.schema, `query.${parameter.name}`, 'request')
              : [`query.${parameter.name}: gone`];
          }),
          ...Object.entries(operation.responses as Record<string, Schema>).flatMap(([status, schema]) =>
            compare(
              old,
              schema,
              now.responses[status]?.content?.['application/json']?.schema,
              `${status}`,
              'answer',
            ),
          ),
        ];
        expect(problems).toEqual([]);
      });
    }
  },
);
