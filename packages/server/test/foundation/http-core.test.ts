import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';

describeEachDatabase('HTTP core', (api) => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await api.createStore());
  });

  it('every response carries a fresh Request-Id, success and error alike', async () => {
    const ok = await api.as(key).get('/checkouts');
    const err = await api.request('GET', '/checkouts');
    expect(ok.headers.get('request-id')).toMatch(/^req_[0-9A-Za-z]{24}$/);
    expect(err.headers.get('request-id')).toMatch(/^req_/);
    expect(ok.headers.get('request-id')).not.toBe(err.headers.get('request-id'));
  });

  it('ignores a client-sent Request-Id', async () => {
    const res = await api.request('GET', '/checkouts', { key, headers: { 'request-id': 'req_mine' } });
    expect(res.headers.get('request-id')).not.toBe('req_mine');
  });

  describe('Fastify errors leave in the documented envelope', () => {
    it('malformed JSON is 400 invalid_request', async () => {
      const res = await api.request('POST', '/checkouts', {
        key,
        rawBody: '{"name": ',
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, 400, 'invalid_request', null);
    });
    it('a body that is not an object is 400', async () => {
      expectError(await api.as(key).post('/checkouts', ['a']), 400, 'invalid_request');
      expectError(await api.as(key).post('/checkouts', 'text'), 400, 'invalid_request');
      expectError(await api.as(key).post('/checkouts', null), 400, 'invalid_request');
    });
    it('a wrong content type is 400 invalid_request', async () => {
      const res = await api.request('POST', '/checkouts', {
        key,
        rawBody: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectError(res, 400, 'invalid_request');
    });
    it('a body of exactly 1 MiB is read; one byte more is 413 payload_too_large', async () => {
      const envelope = '{"name":"x","settings_json":{"checkout_descricao":""}}';
      const atLimit = envelope.replace('""', `"${'a'.repeat(1024 * 1024 - envelope.length)}"`);
      expect(Buffer.byteLength(atLimit)).toBe(1024 * 1024);
      const ok = await api.request('POST', '/checkouts', {
        key,
        rawBody: atLimit,
        headers: { 'content-type': 'application/json' },
      });
      // Read and validated (the description is over its own limit), not refused for size.
      expectError(ok, 400, 'invalid_request', 'settings_json.checkout_descricao');
      const over = atLimit.replace('"a', '"aa');
      const res = await api.request('POST', '/checkouts', {
        key,
        rawBody: over,
        headers: { 'content-type': 'application/json' },
      });
      expectError(res, 413, 'payload_too_large');
    });
    it('an unknown route is 404 not_found, with or without a key', async () => {
      expectError(await api.as(key).get('/nothing-here'), 404, 'not_found');
      expectError(await api.request('GET', '/nothing-here'), 404, 'not_found');
      expectError(await api.request('GET', '//nowhere'), 404, 'not_found');
    });
    it('an unknown query parameter is 400 naming it', async () => {
      expectError(await api.as(key).get('/checkouts?color=red'), 400, 'invalid_request', 'color');
    });
  });

  it('health endpoints answer without a key, outside the v1 prefix', async () => {
    const live = await api.request('GET', '//healthz');
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    const ready = await api.request('GET', '//readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('serves the OpenAPI 3.1 document, version 1.1.0, without a key', async () => {
    const res = await api.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toBe('1.3.0');
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining(['/checkouts', '/checkouts/{id}', '/checkouts/{id}/archive']),
    );
    expect(res.body.paths['/checkouts'].post.requestBody).toBeDefined();
    expect(res.body.paths['/checkouts'].post.responses['201']).toBeDefined();
  });
});
