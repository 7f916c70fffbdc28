import { describe, expect, it } from 'vitest';
import { findUnstorableText } from '../../src/platform/http/storable-text.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';

const NUL = 'a\u0000b';
const LONE_HIGH = 'x\ud800';
const LONE_LOW = '\udc00y';

describe('findUnstorableText', () => {
  it('names the first string or key holding NUL or an unpaired surrogate, and passes pairs', () => {
    expect(findUnstorableText({ a: 'ok', b: { c: ['fine', NUL] } })).toBe('b.c.1');
    expect(findUnstorableText({ metadata: { [LONE_LOW]: 'v' } })).toBe('metadata');
    expect(findUnstorableText(LONE_HIGH)).toBe('');
    expect(findUnstorableText({ emoji: 'caf\u00e9 \ud83d\ude00', n: 1, t: true, z: null })).toBeNull();
  });

  it('walks any depth without recursion (a stack overflow was a 500) and names the path', () => {
    let deep: unknown = NUL;
    for (let i = 0; i < 100_000; i++) deep = { a: [deep] };
    expect(findUnstorableText(deep)).toBe(Array(100_000).fill('a.0').join('.'));
  });
});

/**
 * One rule for every text the API stores or looks up, on both databases: NUL and unpaired surrogates
 * are a 400 naming the field (a 404 in a path id), and nothing is written.
 */
describeEachDatabase('text the databases cannot store as sent', (api) => {
  const count = (table: 'pix_charges' | 'webhook_endpoints' | 'events') => api.count(table);

  it('refuses NUL and lone surrogates in a Pix description, external_id and metadata keys and values', async () => {
    const { key } = await api.createStore();
    const as = api.as(key);
    const before = await count('pix_charges');
    for (const [body, param] of [
      [{ amount: 1, description: NUL }, 'description'],
      [{ amount: 1, description: LONE_HIGH }, 'description'],
      [{ amount: 1, description: LONE_LOW }, 'description'],
      [{ amount: 1, external_id: NUL }, 'external_id'],
      [{ amount: 1, metadata: { order: NUL } }, 'metadata.order'],
      [{ amount: 1, metadata: { [LONE_HIGH]: 'v' } }, 'metadata'],
      [{ amount: 1, customer: { name: `Maria ${LONE_LOW}` } }, 'customer.name'],
    ] as const) {
      const error = expectError(await as.post('/payments/pix', body), 400, 'invalid_request', param);
      expect(error.message).toContain('must not contain NUL (U+0000) or unpaired surrogates');
    }
    expect(await count('pix_charges')).toBe(before);

    // A surrogate pair (an emoji) is one character and is stored exactly.
    const created = await as.post('/payments/pix', { amount: 1, description: 'Pedido \ud83d\ude00' });
    expect(created.status).toBe(201);
    const read = await as.get(`/payments/pix/${created.body.id}`);
    expect(read.body.description).toBe('Pedido \ud83d\ude00');
  });

  it('refuses them in a webhook description (create and update)', async () => {
    const { key } = await api.createStore();
    const as = api.as(key);
    const body = { url: 'https://example.com/hook', events: ['pix.paid'] };
    const before = await count('webhook_endpoints');
    expectError(
      await as.post('/webhooks', { ...body, description: 'a\u0000' }),
      400,
      'invalid_request',
      'description',
    );
    expectError(
      await as.post('/webhooks', { ...body, description: '\ud800' }),
      400,
      'invalid_request',
      'description',
    );
    expect(await count('webhook_endpoints')).toBe(before);
    const endpoint = (await as.post('/webhooks', body)).body;
    expectError(
      await as.patch(`/webhooks/${endpoint.id}`, { description: `x${LONE_LOW}` }),
      400,
      'invalid_request',
      'description',
    );
    expect((await as.get(`/webhooks/${endpoint.id}`)).body.description).toBeNull();
  });

  it('answers 404 for a path id holding them, and 400 for a query parameter', async () => {
    const { key } = await api.createStore();
    const as = api.as(key);
    for (const path of [
      '/events/evt_%00',
      '/payments/pix/pix_%00',
      '/payments/pix/external/a%00',
      '/sales/%00',
      '/webhooks/%00/deliveries',
      '/checkouts/%00',
      '/products/%00',
    ]) {
      expectError(await as.get(path), 404, 'not_found', null);
    }
    // Bytes that decode to no text at all (an encoded surrogate) are no id either.
    expectError(await as.get('/events/evt_%ED%A0%80'), 404, 'not_found', null);
    expectError(await as.get('/events?starting_after=%00'), 400, 'invalid_request', 'starting_after');
    expectError(await as.get('/payments/pix?status=paid%00'), 400, 'invalid_request', 'status');
  });

  it('a path no operation has is 404 whatever its body or query holds (found by the fuzzer)', async () => {
    const { key } = await api.createStore();
    const as = api.as(key);
    expectError(await as.patch('/coupons/', { product_ids: [NUL] }), 404, 'not_found', null);
    expectError(await as.post('/nothing-here?q=%00', { name: NUL }), 404, 'not_found', null);
  });

  it('keeps the check order: a bad key is 401 before the text rule', async () => {
    const res = await api.request('POST', '/payments/pix', {
      key: null,
      body: { amount: 1, description: NUL },
    });
    expectError(res, 401, 'unauthorized');
  });
});
