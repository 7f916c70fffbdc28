import net from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import type { ApiResponse } from '../support/test-api.js';

/** Sends bytes fetch refuses to send (a control character in a header) and reads the whole answer. */
function rawRequest(baseUrl: string, head: Buffer): Promise<ApiResponse> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(head));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const [headText = '', text = ''] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      const [statusLine, ...lines] = headText.split('\r\n');
      const headers = new Headers(lines.map((line) => line.split(/:\s*/, 2) as [string, string]));
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(text), text });
    });
  });
}

describeEachDatabase('request parsing', (api) => {
  let key: string;
  let as: ReturnType<typeof api.as>;
  beforeAll(async () => {
    ({ key } = await api.createStore());
    as = api.as(key);
  });

  const post = (path: string, rawBody: string, contentType: string) =>
    api.request('POST', path, { key, rawBody, headers: { 'content-type': contentType } });

  it('a control character in Idempotency-Key is the error envelope naming it, and nothing is created', async () => {
    const before = (await as.get('/webhooks')).body.data.length;
    for (const byte of [0x00, 0x01, 0x1b, 0x7f]) {
      const head = Buffer.concat([
        Buffer.from(
          `POST /api/public/v1/webhooks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nIdempotency-Key: a`,
        ),
        Buffer.from([byte]),
        Buffer.from('b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}'),
      ]);
      const res = await rawRequest(api.baseUrl, head);
      const error = expectError(res, 400, 'invalid_request', 'Idempotency-Key');
      expect(error.message).toBe('Invalid header Idempotency-Key: must not contain control characters.');
    }
    // A tab passes Node's parser; the idempotency rule refuses it.
    const tab = await as.post(
      '/webhooks',
      { url: 'https://example.com/h', events: ['pix.paid'] },
      { 'idempotency-key': 'a\tb' },
    );
    expectError(tab, 400, 'invalid_request', 'Idempotency-Key');
    expect((await as.get('/webhooks')).body.data).toHaveLength(before);
  });

  it('a JSON body sent as text/plain says the content type must be application/json', async () => {
    const error = expectError(
      await post('/checkouts', '{"name":"Plain"}', 'text/plain'),
      400,
      'invalid_request',
      null,
    );
    expect(error.message).toBe('Content-Type must be application/json.');
    const form = expectError(
      await post('/checkouts', 'name=x', 'application/x-www-form-urlencoded'),
      400,
      'invalid_request',
    );
    expect(form.message).toBe('Content-Type must be application/json.');
    expect((await as.get('/checkouts')).body.data.map((c: { name: string }) => c.name)).not.toContain(
      'Plain',
    );
  });

  it('an operation that takes no body accepts an empty one sent as application/json (or any type)', async () => {
    const checkout = (await as.post('/checkouts', { name: 'To archive' })).body;
    const archived = await post(`/checkouts/${checkout.id}/archive`, '', 'application/json');
    expect(archived.status).toBe(200);
    expect(archived.body.archived).toBe(true);
    expect((await post(`/checkouts/${checkout.id}/archive`, '', 'text/plain')).status).toBe(200);

    const charge = (await as.post('/payments/pix', { amount: 5 })).body;
    const paid = await post(
      `/payments/pix/${charge.id}/simulate_payment`,
      '',
      'application/json; charset=utf-8',
    );
    expect(paid.body.status).toBe('paid');
    const endpoint = (await as.post('/webhooks', { url: 'https://example.com/h', events: ['pix.paid'] }))
      .body;
    expect((await post(`/webhooks/${endpoint.id}/test`, '', 'application/json')).status).toBe(202);
    const deleted = await api.request('DELETE', `/webhooks/${endpoint.id}`, {
      key,
      rawBody: '',
      headers: { 'content-type': 'application/json' },
    });
    expect(deleted.body.deleted).toBe(true);
  });

  it('an operation that takes a body still refuses an empty one, and a body where none is taken must be JSON', async () => {
    const error = expectError(await post('/checkouts', '', 'application/json'), 400, 'invalid_request', null);
    expect(error.message).toBe('The request body is empty but Content-Type is application/json.');
    const checkout = (await as.post('/checkouts', { name: 'Archive with junk' })).body;
    expectError(
      await post(`/checkouts/${checkout.id}/archive`, 'junk', 'text/plain'),
      400,
      'invalid_request',
    );
    expect((await as.get(`/checkouts/${checkout.id}`)).body.archived).toBe(false);
  });

  it('a path the router cannot decode, or an over-long id, is 404 in the envelope', async () => {
    expectError(await as.get('/events/evt_%ED%A0%80'), 404, 'not_found', null);
    expectError(await as.get(`/checkouts/${'a'.repeat(150)}`), 404, 'not_found', null);
  });
});
