import { beforeAll, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../src/platform/http/json-shape.js';
import { createShop } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import type { ApiResponse } from '../support/test-api.js';

const MiB = 1024 * 1024;
const DEPTH_MESSAGE = `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`;
const COUNT_MESSAGE = `The request body holds more than ${MAX_JSON_VALUES} values and keys.`;

/** `depth` arrays, one inside the other. */
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** `depth` objects, one inside the other, under the key `a`. */
const nestedObjects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
/** `count` values and keys in all: `{"pix":[…]}` (three) holding `item`s of one value each. */
const wide = (count: number, item: string) =>
  `{"pix":[${Array(count - 3)
    .fill(item)
    .join(',')}]}`;
/** One object of `count` keys. */
const manyKeys = (count: number) => `{${Array.from({ length: count }, (_, i) => `"k${i}":0`).join(',')}}`;

/**
 * Bodies nested deeper than the documented limit are refused with 400 before they are parsed or
 * walked, on the routes anyone may call (PSP callbacks, purchase pages) and on the API: a megabyte of
 * `[[[[` once held the event loop for seconds and answered 500.
 */
describeEachDatabase('deeply nested JSON bodies', (api) => {
  let shop: Shop;
  beforeAll(async () => {
    shop = await createShop(api);
  });

  const routes = () => [
    { path: '//callbacks/pix/no-such-token', key: null },
    { path: `//${shop.pagePath.slice(1)}/orders`, key: null },
    { path: `//${shop.pagePath.slice(1)}/quote`, key: null },
    { path: '/payments/pix', key: shop.key },
  ];
  const post = (route: { path: string; key: string | null }, rawBody: string): Promise<ApiResponse> =>
    api.request('POST', route.path, {
      key: route.key,
      rawBody,
      headers: { 'content-type': 'application/json', origin: api.baseUrl },
    });
  const counts = () =>
    Promise.all((['orders', 'pix_charges', 'pix_callbacks'] as const).map((table) => api.count(table)));

  it(`one level past ${MAX_JSON_DEPTH}, and a megabyte of nesting, answer 400 invalid_request on every route`, async () => {
    const before = await counts();
    const bodies = [
      nestedArrays(MAX_JSON_DEPTH + 1),
      nestedObjects(MAX_JSON_DEPTH + 1),
      nestedArrays(MiB / 2 - 8),
      nestedObjects(Math.floor(MiB / 6) - 8),
      '['.repeat(MiB - 16), // never closed: refused before the parser sees it
      `{"pix":${nestedArrays(MAX_JSON_DEPTH)}}`,
    ];
    for (const route of routes()) {
      for (const body of bodies) {
        const error = expectError(await post(route, body), 400, 'invalid_request', null);
        expect(error.message).toBe(DEPTH_MESSAGE);
      }
    }
    expect(await counts()).toEqual(before);
    expect((await api.request('GET', '//healthz')).status).toBe(200);
  });

  it(`${MAX_JSON_DEPTH} levels pass the depth rule and reach each route's own answer`, async () => {
    const callback = await post(routes()[0]!, nestedArrays(MAX_JSON_DEPTH));
    expectError(callback, 404, 'not_found');
    for (const route of routes().slice(1)) {
      for (const body of [nestedArrays(MAX_JSON_DEPTH), nestedObjects(MAX_JSON_DEPTH)]) {
        const error = expectError(await post(route, body), 400, 'invalid_request');
        expect(error.message).not.toBe(DEPTH_MESSAGE);
      }
    }
  });

  it(`${MAX_JSON_VALUES} values and keys pass, one more is refused before parsing`, async () => {
    const before = await counts();
    for (const route of routes()) {
      for (const item of ['{}', '[]', '0', '-1.5e3', '""', 'true', 'null']) {
        const refused = expectError(
          await post(route, wide(MAX_JSON_VALUES + 1, item)),
          400,
          'invalid_request',
        );
        expect(refused.message).toBe(COUNT_MESSAGE);
      }
      for (const body of [
        `[${Array(MiB / 4)
          .fill('{}')
          .join(',')}]`,
        manyKeys(MiB / 16),
      ]) {
        const error = expectError(await post(route, body), 400, 'invalid_request');
        expect(error.message).toBe(COUNT_MESSAGE);
      }
    }
    expect(await counts()).toEqual(before);
    // At the limit the body is read: the callback's own answer (an unknown token), not the refusal.
    expectError(await post(routes()[0]!, wide(MAX_JSON_VALUES, ' 1 ')), 404, 'not_found');
    for (const route of routes().slice(1)) {
      const error = expectError(await post(route, wide(MAX_JSON_VALUES, '[]')), 400, 'invalid_request');
      expect(error.message).not.toBe(COUNT_MESSAGE);
    }
  });

  it('brackets inside strings are text, not nesting', async () => {
    const brackets = '"[{\\'.repeat(20); // escaped quotes and backslashes too
    const charge = await api.as(shop.key).post('/payments/pix', { amount: 1, description: brackets });
    expect(charge.status).toBe(201);
    expect(charge.body.description).toBe(brackets);
    const callback = await post(routes()[0]!, JSON.stringify({ pix: [{ txid: '[{'.repeat(1000) }] }));
    expectError(callback, 404, 'not_found');
  });
});
