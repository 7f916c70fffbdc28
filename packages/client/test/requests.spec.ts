import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  Storefront,
  StorefrontError,
  VERSION,
} from '../src/index.js';
import { API_KEY, clientFor } from './support/fixtures.js';
import { json, startStub, type Stub } from './support/stub-server.js';

let server: Stub;
let client: Storefront;

before(async () => {
  // An empty list envelope suits every call: the client returns whatever JSON a 2xx carries.
  server = await startStub(() => json(200, { object: 'list', data: [], has_more: false, next_cursor: null }));
  client = clientFor(server.baseUrl);
});
after(() => server.close());

function last() {
  const request = server.requests.at(-1);
  assert.ok(request, 'a request reached the stub');
  return request;
}

describe('every request', () => {
  it('carries the bearer key, JSON accept and a user agent, under /api/public/v1', async () => {
    await client.pix.retrieve('pix_1');
    const request = last();
    assert.equal(request.url, '/api/public/v1/payments/pix/pix_1');
    assert.equal(request.headers.authorization, `Bearer ${API_KEY}`);
    assert.equal(request.headers.accept, 'application/json');
    assert.match(String(request.headers['user-agent']), new RegExp(`^storefront-node/${VERSION} `));
  });

  it('sends snake_case JSON bodies with a JSON content type', async () => {
    await client.pix.create({ amount: 49.9, external_id: 'order-1', customer: { email: 'a@b.co' } });
    const request = last();
    assert.equal(request.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(request.body), {
      amount: 49.9,
      external_id: 'order-1',
      customer: { email: 'a@b.co' },
    });
  });

  it('returns the object with a non-enumerable lastResponse: status, request id and headers', async () => {
    const charge = await client.pix.create({ amount: 10, external_id: 'order-1' });
    assert.equal(charge.lastResponse.statusCode, 200);
    assert.equal(typeof charge.lastResponse.headers['content-type'], 'string');
    assert.equal(Object.keys(charge).includes('lastResponse'), false);
    assert.equal(JSON.stringify(charge).includes('lastResponse'), false);
  });

  it('sends no body and no content type on a GET', async () => {
    await client.pix.retrieve('pix_1');
    assert.equal(last().body, '');
    assert.equal(last().headers['content-type'], undefined);
  });

  it('serialises query parameters and leaves out undefined ones', async () => {
    await client.products.list({ limit: 5, ativo: false, codigo: undefined, slug: 'curso-de-violao' });
    assert.equal(last().url, '/api/public/v1/products?limit=5&ativo=false&slug=curso-de-violao');
  });

  it('URL-encodes ids, so an external id cannot reach another path', async () => {
    await client.pix.retrieveByExternalId('pedido/42?x=1#a b');
    assert.equal(last().url, '/api/public/v1/payments/pix/external/pedido%2F42%3Fx%3D1%23a%20b');
  });

  it('refuses an empty or dot-segment id before sending', async () => {
    const before = server.requests.length;
    for (const id of ['', '.', '..']) {
      await assert.rejects(client.pix.retrieve(id), StorefrontError);
      await assert.rejects(client.webhookEndpoints.listDeliveries(id), StorefrontError);
      await assert.rejects(client.webhookEndpoints.listDeliveries(id), StorefrontError);
    }
    assert.equal(server.requests.length, before);
  });
});

describe('base URL', () => {
  for (const [label, suffix] of [
    ['a trailing slash', '/'],
    ['the API prefix already present', '/api/public/v1/'],
  ]) {
    it(`accepts ${label}`, async () => {
      await clientFor(server.baseUrl + suffix).sales.retrieve('sale_1');
      assert.equal(last().url, '/api/public/v1/sales/sale_1');
    });
  }

  it('keeps a path prefix of a service mounted below the root', async () => {
    await clientFor(`${server.baseUrl}/shop`).sales.retrieve('sale_1');
    assert.equal(last().url, '/shop/api/public/v1/sales/sale_1');
  });
});

describe('client options', () => {
  it('defaults to a 15000 ms timeout and one retry', () => {
    assert.equal(DEFAULT_TIMEOUT_MS, 15_000);
    assert.equal(DEFAULT_MAX_RETRIES, 1);
  });

  const invalid: [string, Record<string, unknown>][] = [
    ['no apiKey', { apiKey: '' }],
    ['a relative baseUrl', { baseUrl: '/api' }],
    ['a non-http baseUrl', { baseUrl: 'ftp://example.com' }],
    ['maxRetries 2', { maxRetries: 2 }],
    ['maxRetries -1', { maxRetries: -1 }],
    ['timeout 0', { timeout: 0 }],
    ['timeout NaN', { timeout: Number.NaN }],
  ];
  for (const [label, override] of invalid) {
    it(`rejects ${label}`, () => {
      assert.throws(
        () => new Storefront({ apiKey: API_KEY, baseUrl: 'http://127.0.0.1:1', ...override } as never),
        StorefrontError,
      );
    });
  }

  it('rejects an invalid per-call maxRetries', async () => {
    await assert.rejects(client.pix.retrieve('pix_1', { maxRetries: 3 }), /maxRetries/);
  });
});

describe('resource routes', () => {
  const routes: [string, () => Promise<unknown>, string, string, unknown?][] = [
    ['pix.create', () => client.pix.create({ amount: 1 }), 'POST', '/payments/pix', { amount: 1 }],
    ['pix.retrieve', () => client.pix.retrieve('pix_a'), 'GET', '/payments/pix/pix_a'],
    [
      'pix.retrieveByExternalId',
      () => client.pix.retrieveByExternalId('ext'),
      'GET',
      '/payments/pix/external/ext',
    ],
    [
      'pix.list',
      () => client.pix.list({ status: 'paid', limit: 3 }),
      'GET',
      '/payments/pix?status=paid&limit=3',
    ],
    [
      'pix.simulatePayment',
      () => client.pix.simulatePayment('pix_a'),
      'POST',
      '/payments/pix/pix_a/simulate_payment',
    ],
    ['sales.list', () => client.sales.list(), 'GET', '/sales'],
    [
      'analytics.summary',
      () => client.analytics.summary({ from: '2026-03-01', to: '2026-03-31', product_id: 'p1' }),
      'GET',
      '/analytics/summary?from=2026-03-01&to=2026-03-31&product_id=p1',
    ],
    ['sales.retrieve', () => client.sales.retrieve('s1'), 'GET', '/sales/s1'],
    ['sales.refund', () => client.sales.refund('s1'), 'POST', '/sales/s1/refund'],
    [
      'sales.resendDeliveryEmail',
      () => client.sales.resendDeliveryEmail('s1'),
      'POST',
      '/sales/s1/resend_delivery_email',
    ],
    [
      'products.create',
      () => client.products.create({ nome: 'Curso', preco: 10 }),
      'POST',
      '/products',
      { nome: 'Curso', preco: 10 },
    ],
    ['products.retrieve', () => client.products.retrieve('p1'), 'GET', '/products/p1'],
    [
      'products.update',
      () => client.products.update('p1', { ativo: true }),
      'PATCH',
      '/products/p1',
      { ativo: true },
    ],
    ['products.list', () => client.products.list({ codigo: 'ABC' }), 'GET', '/products?codigo=ABC'],
    ['products.archive', () => client.products.archive('p1'), 'POST', '/products/p1/archive'],
    [
      'checkouts.create',
      () => client.checkouts.create({ name: 'Black Friday' }),
      'POST',
      '/checkouts',
      { name: 'Black Friday' },
    ],
    ['checkouts.retrieve', () => client.checkouts.retrieve('c1'), 'GET', '/checkouts/c1'],
    ['checkouts.list', () => client.checkouts.list({ limit: 100 }), 'GET', '/checkouts?limit=100'],
    ['checkouts.archive', () => client.checkouts.archive('c1'), 'POST', '/checkouts/c1/archive'],
    [
      'checkouts.update',
      () => client.checkouts.update('c1', { name: 'Novo' }),
      'PATCH',
      '/checkouts/c1',
      { name: 'Novo' },
    ],
    ['checkouts.unarchive', () => client.checkouts.unarchive('c1'), 'POST', '/checkouts/c1/unarchive'],
    [
      'coupons.create',
      () => client.coupons.create({ code: 'DEZ', percent_off: 10 }),
      'POST',
      '/coupons',
      { code: 'DEZ', percent_off: 10 },
    ],
    ['coupons.retrieve', () => client.coupons.retrieve('cpn_1'), 'GET', '/coupons/cpn_1'],
    [
      'coupons.update',
      () => client.coupons.update('cpn_1', { active: false }),
      'PATCH',
      '/coupons/cpn_1',
      { active: false },
    ],
    ['coupons.list', () => client.coupons.list({ active: true }), 'GET', '/coupons?active=true'],
    ['coupons.archive', () => client.coupons.archive('cpn_1'), 'POST', '/coupons/cpn_1/archive'],
    [
      'orders.list',
      () => client.orders.list({ status: 'abandoned', 'created[gte]': '2026-11-01T00:00:00.000Z' }),
      'GET',
      '/orders?status=abandoned&created%5Bgte%5D=2026-11-01T00%3A00%3A00.000Z',
    ],
    ['orders.retrieve', () => client.orders.retrieve('o1'), 'GET', '/orders/o1'],
    [
      'orders.simulateAbandonment',
      () => client.orders.simulateAbandonment('o1'),
      'POST',
      '/orders/o1/simulate_abandonment',
    ],
    ['store.retrieve', () => client.store.retrieve(), 'GET', '/store'],
    [
      'store.update',
      () => client.store.update({ recovery_email: { enabled: true, delay_minutes: 30 } }),
      'PATCH',
      '/store',
      { recovery_email: { enabled: true, delay_minutes: 30 } },
    ],
    [
      'pix.simulateExpiration',
      () => client.pix.simulateExpiration('pix_1'),
      'POST',
      '/payments/pix/pix_1/simulate_expiration',
    ],
    [
      'webhookEndpoints.create',
      () => client.webhookEndpoints.create({ url: 'https://x.example/h', events: ['pix.paid'] }),
      'POST',
      '/webhooks',
      { url: 'https://x.example/h', events: ['pix.paid'] },
    ],
    ['webhookEndpoints.retrieve', () => client.webhookEndpoints.retrieve('w1'), 'GET', '/webhooks/w1'],
    [
      'webhookEndpoints.update',
      () => client.webhookEndpoints.update('w1', { status: 'paused' }),
      'PATCH',
      '/webhooks/w1',
      { status: 'paused' },
    ],
    ['webhookEndpoints.list', () => client.webhookEndpoints.list(), 'GET', '/webhooks'],
    ['webhookEndpoints.del', () => client.webhookEndpoints.del('w1'), 'DELETE', '/webhooks/w1'],
    ['webhookEndpoints.test', () => client.webhookEndpoints.test('w1'), 'POST', '/webhooks/w1/test'],
    [
      'webhookEndpoints.rotateSecret',
      () => client.webhookEndpoints.rotateSecret('w1', { expires_in_hours: 0 }),
      'POST',
      '/webhooks/w1/rotate_secret',
      { expires_in_hours: 0 },
    ],
    [
      'webhookEndpoints.rotateSecret (default overlap)',
      () => client.webhookEndpoints.rotateSecret('w1'),
      'POST',
      '/webhooks/w1/rotate_secret',
      {},
    ],
    [
      'webhookEndpoints.listDeliveries',
      () => client.webhookEndpoints.listDeliveries('w1'),
      'GET',
      '/webhooks/w1/deliveries',
    ],
    [
      'webhookEndpoints.retryDelivery',
      () => client.webhookEndpoints.retryDelivery('w1', 'd1'),
      'POST',
      '/webhooks/w1/deliveries/d1/retry',
    ],
    [
      'cardPayments.create',
      () =>
        client.cardPayments.create({
          amount: 997,
          installments: 12,
          card: { token: 'tok_test_approved' },
          customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725' },
        }),
      'POST',
      '/payments/card',
      {
        amount: 997,
        installments: 12,
        card: { token: 'tok_test_approved' },
        customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725' },
      },
    ],
    ['cardPayments.retrieve', () => client.cardPayments.retrieve('card_1'), 'GET', '/payments/card/card_1'],
    [
      'cardPayments.list',
      () => client.cardPayments.list({ status: 'approved', external_id: 'pedido-1', limit: 5 }),
      'GET',
      '/payments/card?status=approved&external_id=pedido-1&limit=5',
    ],
    [
      'cardPayments.installments',
      () => client.cardPayments.installments({ amount: 997, bin: '41111111' }),
      'GET',
      '/payments/card/installments?amount=997&bin=41111111',
    ],
    [
      'cardPayments.simulate3ds',
      () => client.cardPayments.simulate3ds('card_1', { result: 'failed' }),
      'POST',
      '/payments/card/card_1/simulate_3ds',
      { result: 'failed' },
    ],
    [
      'cardPayments.simulateSettlement',
      () => client.cardPayments.simulateSettlement('card_1', { result: 'approved' }),
      'POST',
      '/payments/card/card_1/simulate_settlement',
      { result: 'approved' },
    ],
    [
      'cardPayments.simulateChargeback',
      () => client.cardPayments.simulateChargeback('card_1'),
      'POST',
      '/payments/card/card_1/simulate_chargeback',
    ],
    ['events.retrieve', () => client.events.retrieve('evt_1'), 'GET', '/events/evt_1'],
    ['events.list', () => client.events.list(), 'GET', '/events'],
  ];

  for (const [name, call, method, path, body] of routes) {
    it(`${name} → ${method} ${path}`, async () => {
      await call();
      const request = last();
      assert.equal(request.method, method);
      assert.equal(request.url, `/api/public/v1${path}`);
      assert.deepEqual(request.body === '' ? undefined : JSON.parse(request.body), body);
    });
  }
});
