import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';

import { NetworkError, RateLimitError, ServerError, TimeoutError, isTimeout } from '../src/index.js';
import { clientFor, pixCharge, UUID_V4 } from './support/fixtures.js';
import { apiError, closedPortUrl, json, sequence, startStub, type Stub } from './support/stub-server.js';

const stubs: Stub[] = [];
after(() => Promise.all(stubs.map((stub) => stub.close())));

async function stub(...actions: Parameters<typeof sequence>): Promise<Stub> {
  const started = await startStub(sequence(...actions));
  stubs.push(started);
  return started;
}

// Each retried case waits the 0.5-1 s jittered delay, so the cases run side by side.
describe('retries', { concurrency: true }, () => {
  for (const status of [429, 500, 502, 503, 504]) {
    it(`retries once after ${status} and returns the second answer`, async () => {
      const server = await stub(apiError(status, 'boom', 'try again'), json(201, pixCharge('pix_1')));
      const charge = await clientFor(server.baseUrl).pix.create({ amount: 10 });
      assert.equal(charge.id, 'pix_1');
      assert.equal(server.requests.length, 2);
    });
  }

  for (const status of [400, 401, 403, 404, 409, 422]) {
    it(`does not retry ${status}`, async () => {
      const server = await stub(apiError(status, 'nope', 'fix the request'), json(201, pixCharge('pix_1')));
      await assert.rejects(clientFor(server.baseUrl).pix.create({ amount: 10 }), { status });
      assert.equal(server.requests.length, 1);
    });
  }

  it('makes exactly one extra attempt, then throws the last error', async () => {
    const server = await stub(apiError(503, 'unavailable', 'down'));
    await assert.rejects(clientFor(server.baseUrl).pix.retrieve('pix_1'), ServerError);
    assert.equal(server.requests.length, 2);
  });

  it('sends a generated UUID v4 Idempotency-Key on a POST and reuses it on the retry', async () => {
    const server = await stub(apiError(500, 'internal_error', 'oops'), json(201, pixCharge('pix_1')));
    await clientFor(server.baseUrl).pix.create({ amount: 10 });
    const [first, second] = server.requests.map((request) => request.headers['idempotency-key']);
    assert.match(String(first), UUID_V4);
    assert.equal(second, first);
  });

  it('generates a new key for each call', async () => {
    const server = await stub(json(201, pixCharge('pix_1')));
    const client = clientFor(server.baseUrl);
    await client.pix.create({ amount: 10 });
    await client.pix.create({ amount: 10 });
    assert.notEqual(
      server.requests[0]?.headers['idempotency-key'],
      server.requests[1]?.headers['idempotency-key'],
    );
  });

  it('passes a given Idempotency-Key through, on both attempts', async () => {
    const server = await stub(apiError(502, 'bad_gateway', 'proxy'), json(201, pixCharge('pix_1')));
    await clientFor(server.baseUrl).pix.create({ amount: 10 }, { idempotencyKey: 'order-42' });
    assert.deepEqual(
      server.requests.map((request) => request.headers['idempotency-key']),
      ['order-42', 'order-42'],
    );
  });

  it('always sends a card payment an Idempotency-Key, the same on the retry', async () => {
    const server = await stub(apiError(502, 'provider_error', 'psp'), json(201, { object: 'card_payment' }));
    await clientFor(server.baseUrl).cardPayments.create({
      amount: 10,
      card: { token: 'tok_test_approved' },
      customer: { name: 'Ana', email: 'ana@example.com', document: '52998224725' },
    });
    const [first, second] = server.requests.map((request) => request.headers['idempotency-key']);
    assert.match(String(first), UUID_V4);
    assert.equal(second, first);
  });

  it('sends no Idempotency-Key on a GET', async () => {
    const server = await stub(json(200, pixCharge('pix_1')));
    await clientFor(server.baseUrl).pix.retrieve('pix_1');
    assert.equal(server.requests[0]?.headers['idempotency-key'], undefined);
  });

  it('waits for Retry-After on a 429', async () => {
    const server = await stub(
      json(429, { error: { code: 'rate_limited', message: 'slow down' } }, { 'Retry-After': '1' }),
      json(200, pixCharge('pix_1')),
    );
    await clientFor(server.baseUrl).pix.retrieve('pix_1');
    const [first, second] = server.requests;
    assert.ok(first && second);
    assert.ok(second.at - first.at >= 950, `retried after ${Math.round(second.at - first.at)} ms`);
  });

  it('surfaces a RateLimitError with retryAfter when the retry is limited too', async () => {
    const server = await stub(apiError(429, 'rate_limited', 'slow down'));
    const error = await clientFor(server.baseUrl)
      .pix.retrieve('pix_1')
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.retryAfter, null);
    assert.equal(server.requests.length, 2);
  });

  it('maxRetries 0 on the client disables retries', async () => {
    const server = await stub(apiError(500, 'internal_error', 'oops'), json(200, pixCharge('pix_1')));
    await assert.rejects(clientFor(server.baseUrl, { maxRetries: 0 }).pix.retrieve('pix_1'), ServerError);
    assert.equal(server.requests.length, 1);
  });

  it('maxRetries 0 on one call disables retries for that call', async () => {
    const server = await stub(apiError(500, 'internal_error', 'oops'), json(200, pixCharge('pix_1')));
    await assert.rejects(clientFor(server.baseUrl).pix.retrieve('pix_1', { maxRetries: 0 }), ServerError);
    assert.equal(server.requests.length, 1);
  });

  it('retries a dropped connection once, as a network error', async () => {
    const server = await stub('drop', json(200, pixCharge('pix_1')));
    const charge = await clientFor(server.baseUrl).pix.retrieve('pix_1');
    assert.equal(charge.id, 'pix_1');
    assert.equal(server.requests.length, 2);
  });

  it('throws NetworkError when the connection keeps failing', async () => {
    const server = await stub('drop');
    await assert.rejects(clientFor(server.baseUrl).pix.retrieve('pix_1'), NetworkError);
    assert.equal(server.requests.length, 2);
  });

  it('maps a refused connection to NetworkError with the cause, after one retry', async (t) => {
    // Nothing listens, so the stub cannot count attempts: count the fetch calls instead.
    const fetchSpy = t.mock.method(globalThis, 'fetch');
    const baseUrl = await closedPortUrl();
    const error = await clientFor(baseUrl)
      .pix.retrieve('pix_1')
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof NetworkError);
    assert.ok(error.cause, 'keeps the underlying fetch error');
    assert.match(error.message, /ECONNREFUSED/);
    // The other cases run concurrently through the same global fetch; count only this one's calls.
    const calls = fetchSpy.mock.calls.filter((call) => String(call.arguments[0]).startsWith(baseUrl));
    assert.equal(calls.length, 2);
  });

  it('retries a timeout once, with the same Idempotency-Key', async () => {
    const server = await stub('hang');
    const error = await clientFor(server.baseUrl, { timeout: 200 })
      .pix.create({ amount: 10 })
      .catch((caught: unknown) => caught);
    assert.ok(error instanceof TimeoutError);
    assert.equal(server.requests.length, 2);
    assert.equal(
      server.requests[0]?.headers['idempotency-key'],
      server.requests[1]?.headers['idempotency-key'],
    );
  });
});

describe('timeouts', { concurrency: true }, () => {
  it('applies the client timeout', async () => {
    const server = await stub('hang');
    const error = await clientFor(server.baseUrl, { timeout: 150, maxRetries: 0 })
      .pix.retrieve('pix_1')
      .catch((caught: unknown) => caught);
    assert.ok(isTimeout(error));
    assert.equal(error.timeout, 150);
    assert.equal(server.requests.length, 1);
  });

  it('applies a per-call timeout over the client one', async () => {
    const server = await stub('hang');
    const error = await clientFor(server.baseUrl)
      .pix.retrieve('pix_1', { timeout: 150, maxRetries: 0 })
      .catch((caught: unknown) => caught);
    assert.ok(isTimeout(error));
    assert.equal(error.timeout, 150);
  });

  it('lets a per-call timeout be longer than the client one', async () => {
    const server = await startStub(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      return json(200, pixCharge('pix_1'));
    });
    stubs.push(server);
    const client = clientFor(server.baseUrl, { timeout: 50, maxRetries: 0 });
    const charge = await client.pix.retrieve('pix_1', { timeout: 5000 });
    assert.equal(charge.id, 'pix_1');
  });

  it('covers the response body, not only the headers', async () => {
    const server = await stub('stall');
    await assert.rejects(
      clientFor(server.baseUrl, { timeout: 200, maxRetries: 0 }).pix.retrieve('pix_1'),
      TimeoutError,
    );
  });
});
