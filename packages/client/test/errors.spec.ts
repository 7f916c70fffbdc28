import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';

import {
  APIError,
  AuthenticationError,
  isApiError,
  isTimeout,
  NetworkError,
  NotFoundError,
  RateLimitError,
  ServerError,
  StorefrontError,
  TimeoutError,
  ValidationError,
} from '../src/index.js';
import { clientFor } from './support/fixtures.js';
import { apiError, json, startStub, type StubAction, type Stub } from './support/stub-server.js';

let server: Stub;
let nextReply: StubAction = json(200, {});

before(async () => {
  server = await startStub(() => nextReply);
});
after(() => server.close());

/** The error the client throws when the stub answers `reply` (no retries, to see one answer). */
async function errorFor(reply: StubAction): Promise<unknown> {
  nextReply = reply;
  return clientFor(server.baseUrl, { maxRetries: 0 })
    .products.retrieve('p1')
    .then(
      () => assert.fail('expected the call to throw'),
      (error: unknown) => error,
    );
}

describe('error mapping', () => {
  const classes: [number, new (...args: never[]) => APIError][] = [
    [400, ValidationError],
    [401, AuthenticationError],
    [403, AuthenticationError],
    [404, NotFoundError],
    [409, ValidationError],
    [413, ValidationError],
    [422, ValidationError],
    [429, RateLimitError],
    [500, ServerError],
    [502, ServerError],
    [503, ServerError],
    [504, ServerError],
  ];
  for (const [status, expected] of classes) {
    it(`${status} → ${expected.name}`, async () => {
      const error = await errorFor(apiError(status, 'some_code', 'Something went wrong'));
      assert.ok(error instanceof expected);
      assert.ok(error instanceof APIError);
      assert.ok(error instanceof StorefrontError);
      assert.ok(isApiError(error));
      assert.equal(error.status, status);
    });
  }

  it('exposes code, message, param and requestId from the error body', async () => {
    const error = await errorFor(
      apiError(400, 'invalid_request', 'preco must be at most 1000000', {
        param: 'preco',
        request_id: 'req_abc',
      }),
    );
    assert.ok(error instanceof ValidationError);
    assert.equal(error.code, 'invalid_request');
    assert.equal(error.message, 'preco must be at most 1000000');
    assert.equal(error.param, 'preco');
    assert.equal(error.requestId, 'req_abc');
    assert.equal(error.headers.get('request-id'), 'req_header456');
    assert.equal(error.name, 'ValidationError');
  });

  it('falls back to the Request-Id header when the body has no request_id', async () => {
    const error = await errorFor(json(404, { error: { code: 'not_found', message: 'No such product' } }));
    assert.ok(error instanceof NotFoundError);
    assert.equal(error.requestId, 'req_header456');
    assert.equal(error.param, null);
  });

  it('tolerates a body that is not JSON', async () => {
    const error = await errorFor({ status: 502, body: '<html>Bad Gateway</html>' });
    assert.ok(error instanceof ServerError);
    assert.equal(error.code, null);
    assert.match(error.message, /502/);
    assert.match(error.message, /Bad Gateway/);
    assert.equal(error.requestId, 'req_header456');
  });

  it('tolerates an empty body and JSON of another shape', async () => {
    for (const body of [undefined, { message: 'flat' }, ['array']]) {
      const error = await errorFor({ status: 500, body });
      assert.ok(error instanceof ServerError);
      assert.equal(error.code, null);
      assert.match(error.message, /500/);
    }
  });

  it('reads Retry-After as seconds on a RateLimitError', async () => {
    const error = await errorFor(
      json(429, { error: { code: 'rate_limited', message: 'Too many requests' } }, { 'Retry-After': '7' }),
    );
    assert.ok(error instanceof RateLimitError);
    assert.equal(error.retryAfter, 7);
    assert.equal(error.code, 'rate_limited');
  });

  it('reads an HTTP-date Retry-After too', async () => {
    const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
    const error = await errorFor(json(429, {}, { 'Retry-After': inTenSeconds }));
    assert.ok(error instanceof RateLimitError);
    assert.ok(error.retryAfter !== null && error.retryAfter > 0 && error.retryAfter <= 10);
  });

  it('does not follow redirects: a 3xx is an APIError', async () => {
    const error = await errorFor({ status: 302, headers: { Location: 'https://elsewhere.example/' } });
    assert.ok(isApiError(error));
    assert.equal(error.status, 302);
  });

  it('rejects a 2xx body that is not JSON with a StorefrontError', async () => {
    nextReply = { status: 200, body: 'not json' };
    await assert.rejects(clientFor(server.baseUrl).products.retrieve('p1'), (error: unknown) => {
      assert.ok(error instanceof StorefrontError && !isApiError(error));
      assert.match(error.message, /not JSON/);
      return true;
    });
  });
});

describe('predicates', () => {
  it('isTimeout is true only for TimeoutError', () => {
    assert.equal(isTimeout(new TimeoutError(10)), true);
    assert.equal(isTimeout(new NetworkError('down')), false);
    assert.equal(isTimeout(new Error('timeout')), false);
    assert.equal(isTimeout(undefined), false);
  });

  it('isApiError is false for network, timeout and plain errors', () => {
    assert.equal(isApiError(new NetworkError('down')), false);
    assert.equal(isApiError(new TimeoutError(10)), false);
    assert.equal(isApiError(new Error('x')), false);
    assert.equal(isApiError(null), false);
  });
});
