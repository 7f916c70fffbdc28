import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/api-keys/scopes.js';
import type { Scope } from '../../src/platform/api-keys/scopes.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { hostileString, invalidMutations, resolver, valid } from './arbitraries.js';
import type { Schema } from './arbitraries.js';

/**
 * Property tests generated from the description: for every operation, random valid and invalid bodies,
 * query strings and path ids (own, another store's, unknown, malformed), with and without the right
 * key. Every answer must be documented for the operation (the TestApi contract hook checks status and
 * body), none may be a 5xx, an invalid request must not succeed, and a request that failed must leave
 * every table of the store exactly as it was.
 *
 * Bounded: STOREFRONT_FUZZ_RUNS cases per operation (default 40) and a time budget per operation.
 */

const RUNS = Number(process.env.STOREFRONT_FUZZ_RUNS ?? 40);
const TIME_BUDGET_MS = Number(process.env.STOREFRONT_FUZZ_MS_PER_OPERATION ?? 2000);
const DOCUMENT: Schema = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../../docs/openapi.json', import.meta.url)), 'utf8'),
);
const METHOD_ORDER = ['get', 'post', 'patch', 'delete'];

interface Operation {
  method: string;
  path: string;
  op: Schema;
}

/** DELETE last, so the fixtures other operations address survive as long as possible. */
const OPERATIONS: Operation[] = Object.entries<Schema>(DOCUMENT.paths)
  .flatMap(([path, item]) => Object.entries<Schema>(item).map(([method, op]) => ({ method, path, op })))
  .sort((a, b) => METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method));

interface Case {
  key: 'own' | 'none' | 'wrong-scope';
  ids: string[];
  query: { params: Record<string, string>; invalid: string | null };
  body: { kind: string; value?: unknown; raw?: string; invalid: boolean } | null;
}

/** encodeURIComponent, except that an unpaired surrogate is sent as the bytes a lax encoder would write. */
const encodeLoosely = (s: string) =>
  [...s]
    .map((ch) => {
      try {
        return encodeURIComponent(ch);
      } catch {
        return '%ED%A0%80';
      }
    })
    .join('');

// A dot segment ("." or "..", "%2E" too) is resolved away by every URL parser (`/products/.` is
// `/products/`), so no client can send it as an id: such ids are left out.
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
const MALFORMED_IDS = fc
  .oneof(
    fc.string({ minLength: 1, maxLength: 40 }).map((s) => encodeURIComponent(s)),
    hostileString(20).map(encodeLoosely),
    hostileString(20).map((s) => `evt_${encodeLoosely(s)}`),
    fc.constantFrom(
      '0',
      'null',
      'undefined',
      '%20',
      'pix_',
      'evt_x',
      "1' or '1'='1",
      '..%2F..',
      'a'.repeat(90),
    ),
    fc.uuid().map((u) => u.toUpperCase().replace(/-/g, '')),
  )
  .filter((id) => !DOT_SEGMENT.test(id));

function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
}

describeEachDatabase(
  'fuzz: every operation of the description',
  (api: TestApi) => {
    const served: { document: Schema } = { document: DOCUMENT };
    let own: { storeId: string; key: string };
    let other: { storeId: string; key: string };
    let tables: string[] = [];
    const stats = { cases: 0, invalid: 0, failed: 0, succeeded: 0, operations: 0 };
    const resolve = resolver(DOCUMENT);

    /** Every row of every table, hashed: a failed request must not change it. */
    async function snapshot(): Promise<string> {
      const hash = createHash('sha256');
      for (const table of tables) {
        const { rows } = await sql`select * from ${sql.table(table)}`.execute(api.db);
        hash.update(`${table}\n${rows.map(stableJson).sort().join('\n')}\n`);
      }
      return hash.digest('hex');
    }

    function listOperation(path: string): Schema | undefined {
      return DOCUMENT.paths[path]?.get;
    }

    /** Creates one of everything a store can hold, from the description's own request examples. */
    async function seed(key: string): Promise<void> {
      const as = api.as(key);
      for (const { method, path, op } of OPERATIONS) {
        if (method !== 'post' || path.includes('{')) continue;
        let example = op.requestBody?.content?.['application/json']?.example;
        if (example === undefined) continue;
        // A subscription's example names a product, which must exist in this store and be recurring.
        if (path === '/subscriptions') {
          const product = await as.post('/products', { nome: 'Clube', preco: 10, recorrencia: 'mensal' });
          example = { ...example, product_id: product.body.id };
        }
        // Every creation takes an Idempotency-Key, and a card payment requires one.
        const res = await as.post(path, example, { 'idempotency-key': `seed-${path}` });
        expect(res.status, `seeding ${path}: ${res.text}`).toBeLessThan(300);
      }
      // A paid charge gives a sale; a test event gives a delivery, when those operations exist.
      if (DOCUMENT.paths['/payments/pix/{id}/simulate_payment']) {
        const pix = (await as.get('/payments/pix')).body.data[0];
        if (pix) await as.post(`/payments/pix/${pix.id}/simulate_payment`);
      }
      if (DOCUMENT.paths['/webhooks/{id}/test']) {
        const endpoint = (await as.get('/webhooks')).body.data[0];
        if (endpoint) await as.post(`/webhooks/${endpoint.id}/test`);
      }
    }

    /** Real ids for a path's parameters in a store, found through the listings above them. */
    async function idsFor(path: string, key: string): Promise<string[]> {
      const segments = path.split('/');
      const ids: string[] = [];
      const concrete: string[] = [];
      for (let i = 0; i < segments.length; i += 1) {
        const segment = segments[i]!;
        const param = /^\{(.+)\}$/.exec(segment)?.[1];
        if (!param) {
          concrete.push(segment);
          continue;
        }
        let value: string | undefined;
        for (let j = i; j > 0 && value === undefined; j -= 1) {
          const template = segments.slice(0, j).join('/');
          if (!listOperation(template)) continue;
          const res = await api.as(key).get(concrete.slice(0, j).join('/'));
          const item = res.body?.data?.[0];
          const field =
            param === 'id' || param.endsWith('_id')
              ? 'id'
              : param.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
          value = item?.[field] ?? item?.id;
        }
        value ??= randomUUID();
        ids.push(value);
        concrete.push(encodeURIComponent(value));
      }
      return ids;
    }

    function queryArbitrary(op: Schema): Arbitrary<Case['query']> {
      const params = (op.parameters ?? []).filter((p: Schema) => p.in === 'query');
      if (params.length === 0) return fc.constant({ params: {}, invalid: null });
      const validParams = fc
        .record(
          Object.fromEntries(params.map((p: Schema) => [p.name, valid(p.schema, resolve).map(String)])),
          { requiredKeys: [] },
        )
        // A cursor is only valid when the service made it: random ones are exercised as invalid below.
        .map((record) => {
          const copy = { ...(record as Record<string, string>) };
          delete copy.starting_after;
          return copy;
        });
      const invalid: Array<[string, Record<string, string>]> = [
        ['unknown query parameter', { unknown_param: '1' }],
      ];
      for (const p of params as Schema[]) {
        const schema = resolve(p.schema);
        if (schema.type === 'integer') {
          invalid.push(
            [`${p.name} not an integer`, { [p.name]: '1.5' }],
            [`${p.name} not a number`, { [p.name]: 'abc' }],
          );
          if (schema.minimum !== undefined)
            invalid.push([`${p.name} below minimum`, { [p.name]: String(schema.minimum - 1) }]);
          if (schema.maximum !== undefined)
            invalid.push([`${p.name} above maximum`, { [p.name]: String(schema.maximum + 1) }]);
        }
        if (schema.type === 'boolean') invalid.push([`${p.name} not a boolean`, { [p.name]: 'maybe' }]);
        if (Array.isArray(schema.enum)) invalid.push([`${p.name} outside enum`, { [p.name]: 'not_a_value' }]);
        if (schema.maxLength !== undefined)
          invalid.push([`${p.name} over-long`, { [p.name]: 'a'.repeat(schema.maxLength + 1) }]);
        if (p.name === 'starting_after')
          invalid.push(['forged cursor', { starting_after: 'eyJsIjoieCJ9.AAAAAAAAAAAAAAAAAAAAAA' }]);
      }
      return fc.oneof(
        { weight: 3, arbitrary: validParams.map((p) => ({ params: p, invalid: null })) },
        {
          weight: 2,
          arbitrary: fc
            .tuple(validParams, fc.constantFrom(...invalid))
            .map(([p, [kind, bad]]) => ({ params: { ...p, ...bad }, invalid: kind })),
        },
      );
    }

    function bodyArbitrary(method: string, op: Schema): Arbitrary<Case['body']> {
      const schema = op.requestBody?.content?.['application/json']?.schema;
      const malformed = fc.constant({ kind: 'malformed JSON', raw: '{"a": ', invalid: true });
      if (!schema) {
        if (method === 'get') return fc.constant(null);
        return fc.oneof({ weight: 6, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: malformed });
      }
      const mutations = invalidMutations(schema, resolve);
      const validBody = valid(schema, resolve) as Arbitrary<Record<string, unknown>>;
      return fc.oneof(
        { weight: 3, arbitrary: validBody.map((value) => ({ kind: 'valid', value, invalid: false })) },
        {
          weight: 5,
          arbitrary: fc.tuple(validBody, fc.constantFrom(...mutations)).map(([value, mutation]) => ({
            kind: mutation.kind,
            value: mutation.apply(value),
            invalid: true,
          })),
        },
        { weight: 1, arbitrary: malformed },
      );
    }

    beforeAll(async () => {
      served.document = (await api.request('GET', '/openapi.json')).body;
      own = await api.createStore({ name: 'Fuzz store' });
      other = await api.createStore({ name: 'Another store' });
      await seed(own.key);
      await seed(other.key);
      tables = (await api.db.introspection.getTables())
        .map((t) => t.name)
        .filter((name) => !name.startsWith('kysely_'))
        .sort();
    });

    afterAll(() => {
      console.log(
        `fuzz [${api.dialect}]: ${stats.cases} cases over ${stats.operations} operations ` +
          `(${stats.invalid} invalid by construction, ${stats.failed} answered 4xx, ${stats.succeeded} 2xx)`,
      );
    });

    it('fuzzes the description the service serves (the committed copy is checked elsewhere)', () => {
      expect(Object.keys(served.document.paths).sort()).toEqual(Object.keys(DOCUMENT.paths).sort());
    });

    for (const { method, path, op } of OPERATIONS) {
      it(`${method.toUpperCase()} ${path} (${op.operationId})`, async () => {
        const scope = op['x-required-scope'] as Scope;
        const wrongScopeKey = await api.createKey(
          own.storeId,
          SCOPES.filter((s) => s !== scope),
        );
        const ownIds = await idsFor(path, own.key);
        const foreignIds = await idsFor(path, other.key);
        const idArbitrary = fc.oneof(
          { weight: 6, arbitrary: fc.constant(ownIds) },
          { weight: 1, arbitrary: fc.constant(foreignIds) },
          {
            weight: 1,
            arbitrary: fc.array(fc.uuid(), { minLength: ownIds.length, maxLength: ownIds.length }),
          },
          {
            weight: 2,
            arbitrary: fc.array(MALFORMED_IDS, { minLength: ownIds.length, maxLength: ownIds.length }),
          },
        );
        const cases: Arbitrary<Case> = fc.record({
          key: fc.oneof(
            { weight: 10, arbitrary: fc.constant('own' as const) },
            { weight: 1, arbitrary: fc.constantFrom('none' as const, 'wrong-scope' as const) },
          ),
          ids: ownIds.length > 0 ? idArbitrary : fc.constant([]),
          query: queryArbitrary(op),
          body: bodyArbitrary(method, op),
        });
        stats.operations += 1;

        await fc.assert(
          fc.asyncProperty(cases, async (c) => {
            let index = 0;
            const url = path.replace(/\{[^}]+\}/g, () => {
              const id = c.ids[index++]!;
              return ownIds.includes(id) || foreignIds.includes(id) ? encodeURIComponent(id) : id;
            });
            const query = new URLSearchParams(c.query.params).toString();
            const key = c.key === 'own' ? own.key : c.key === 'wrong-scope' ? wrongScopeKey : null;
            const invalid = c.query.invalid ?? (c.body?.invalid ? c.body.kind : null);
            const before = await snapshot();
            const res = await api.request(method.toUpperCase(), query ? `${url}?${query}` : url, {
              key,
              ...(c.body?.raw !== undefined
                ? { rawBody: c.body.raw, headers: { 'content-type': 'application/json' } }
                : c.body
                  ? { body: c.body.value }
                  : {}),
            });
            stats.cases += 1;
            if (invalid) stats.invalid += 1;
            const context = `${method.toUpperCase()} ${url}${query ? `?${query}` : ''} [${invalid ?? 'valid'}] → ${res.status} ${res.text.slice(0, 300)}`;
            expect(res.status, context).toBeLessThan(500);
            if (invalid)
              expect(res.status, `an invalid request succeeded: ${context}`).toBeGreaterThanOrEqual(400);
            if (res.status >= 400) {
              stats.failed += 1;
              expect(await snapshot(), `a failed request wrote to the database: ${context}`).toBe(before);
            } else {
              stats.succeeded += 1;
            }
          }),
          { numRuns: RUNS, interruptAfterTimeLimit: TIME_BUDGET_MS, markInterruptAsFailure: false },
        );
      });
    }
  },
  { config: { worker: 'off' } },
);

describe('fuzz bounds', () => {
  it(`runs at most ${RUNS} cases per operation over ${OPERATIONS.length} operations`, () => {
    expect(RUNS).toBeLessThanOrEqual(40);
    expect(OPERATIONS.length).toBeGreaterThan(0);
  });
});
