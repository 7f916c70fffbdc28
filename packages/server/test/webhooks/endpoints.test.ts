import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';

const ENDPOINT_KEYS = ['created_at', 'description', 'events', 'id', 'object', 'status', 'updated_at', 'url'];
const URL = 'https://hooks.example.com/storefront';

describeEachDatabase('webhook endpoints', (api) => {
  let key: string;
  let storeId: string;
  const create = (body: Record<string, unknown> = {}) =>
    api.as(key).post('/webhooks', { url: URL, events: ['pix.paid'], ...body });

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
  });

  it('creates an active endpoint and returns its whsec_ secret only then', async () => {
    const res = await create({ description: 'ERP', events: ['pix.paid', 'sale.approved', 'pix.paid'] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
    expect(res.body).toMatchObject({
      object: 'webhook_endpoint',
      url: URL,
      description: 'ERP',
      status: 'active',
      events: ['pix.paid', 'sale.approved'], // duplicates folded, order kept
    });
    expect(res.body.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(res.body.updated_at).toBe(res.body.created_at);

    const got = await api.as(key).get(`/webhooks/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(Object.keys(got.body).sort()).toEqual(ENDPOINT_KEYS);
    expect(got.text).not.toContain(res.body.secret);
    const list = await api.as(key).get('/webhooks');
    expect(list.body.data.map((e: any) => e.id)).toContain(res.body.id);
    expect(list.text).not.toContain('whsec_');

    // At rest the secret is sealed, never in clear.
    const row = await api.db
      .selectFrom('webhook_endpoints')
      .select('secret_sealed')
      .where('id', '=', res.body.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(res.body.secret.slice(6));
    expect(row.secret_sealed).toMatch(/^v1\./);
  });

  it('creates a paused endpoint when asked, with a null description by default', async () => {
    const res = await create({ status: 'paused' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'paused', description: null });
  });

  it('refuses disabled at creation, unknown or empty events, and unknown fields', async () => {
    expectError(await create({ status: 'disabled' }), 400, 'invalid_request', 'status');
    expectError(await create({ events: [] }), 400, 'invalid_request', 'events');
    expectError(await create({ events: ['pix.refunded'] }), 400, 'invalid_request', 'events.0');
    expectError(await create({ events: ['webhook.test'] }), 400, 'invalid_request', 'events.0');
    expectError(await create({ events: 'pix.paid' }), 400, 'invalid_request', 'events');
    expectError(await create({ secret: 'whsec_mine' }), 400, 'invalid_request', 'secret');
    expectError(await api.as(key).post('/webhooks', { events: ['pix.paid'] }), 400, 'invalid_request', 'url');
    expectError(await api.as(key).post('/webhooks', { url: URL }), 400, 'invalid_request', 'events');
  });

  it('moves through every status by PATCH and changes url, description and events', async () => {
    const { body: created } = await create();
    const patch = (body: unknown) => api.as(key).patch(`/webhooks/${created.id}`, body);
    for (const status of ['paused', 'disabled', 'active', 'disabled', 'paused', 'active']) {
      const res = await patch({ status });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
    }
    const res = await patch({
      url: 'https://other.example.com:8443/in',
      description: null,
      events: ['sale.refunded', 'sale.refunded', 'pix.expired'],
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(ENDPOINT_KEYS);
    expect(res.body).toMatchObject({
      url: 'https://other.example.com:8443/in',
      description: null,
      events: ['sale.refunded', 'pix.expired'],
      status: 'active',
      created_at: created.created_at,
    });
    expect(res.body.updated_at >= created.updated_at).toBe(true);
    expect((await api.as(key).get(`/webhooks/${created.id}`)).body).toEqual(res.body);
    expectError(await patch({ status: 'deleted' }), 400, 'invalid_request', 'status');
    expectError(await patch({ events: [] }), 400, 'invalid_request', 'events');
    expectError(await patch({ secret: 'x' }), 400, 'invalid_request', 'secret');
    expectError(await patch({ url: 'http://other.example.com/in' }), 400, 'invalid_request', 'url');
  });

  it('deletes an endpoint: 200 with deleted true, then 404 everywhere but its deliveries', async () => {
    const { body: created } = await create();
    const res = await api.as(key).delete(`/webhooks/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'webhook_endpoint', id: created.id, deleted: true });
    expectError(await api.as(key).get(`/webhooks/${created.id}`), 404, 'not_found');
    expectError(await api.as(key).patch(`/webhooks/${created.id}`, { status: 'paused' }), 404, 'not_found');
    expectError(await api.as(key).delete(`/webhooks/${created.id}`), 404, 'not_found');
    expectError(await api.as(key).post(`/webhooks/${created.id}/test`), 404, 'not_found');
    const list = await api.as(key).get('/webhooks?limit=100');
    expect(list.body.data.map((e: any) => e.id)).not.toContain(created.id);
    const deliveries = await api.as(key).get(`/webhooks/${created.id}/deliveries`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
  });

  it('test answers 202 with a webhook.test event for an active endpoint, 400 otherwise', async () => {
    const { body: created } = await create();
    const res = await api.as(key).post(`/webhooks/${created.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      object: 'webhook_test',
      endpoint_id: created.id,
      event_id: expect.stringMatching(/^evt_/),
    });
    const event = await api.as(key).get(`/events/${res.body.event_id}`);
    expect(event.body).toMatchObject({ object: 'event', type: 'webhook.test', livemode: false });
    const jobs = await api.db
      .selectFrom('webhook_jobs')
      .selectAll()
      .where('event_id', '=', res.body.event_id)
      .execute();
    expect(jobs.map((j) => j.endpoint_id)).toEqual([created.id]);

    for (const status of ['paused', 'disabled']) {
      await api.as(key).patch(`/webhooks/${created.id}`, { status });
      expectError(await api.as(key).post(`/webhooks/${created.id}/test`), 400, 'invalid_request');
    }
  });

  it('malformed ids and another store’s endpoints are 404', async () => {
    const { body: created } = await create();
    const other = await api.createStore();
    for (const path of [
      `/webhooks/${created.id}`,
      '/webhooks/not-a-uuid',
      `/webhooks/${created.id}/deliveries`,
    ]) {
      expectError(await api.as(other.key).get(path), 404, 'not_found');
    }
    expectError(
      await api.as(other.key).patch(`/webhooks/${created.id}`, { status: 'paused' }),
      404,
      'not_found',
    );
    expectError(await api.as(other.key).delete(`/webhooks/${created.id}`), 404, 'not_found');
    expectError(await api.as(other.key).post(`/webhooks/${created.id}/test`), 404, 'not_found');
    expect((await api.as(other.key).get('/webhooks')).body.data).toEqual([]);
  });

  it('keeps endpoints per mode: a live key does not see test endpoints', async () => {
    const { body: created } = await create();
    const live = await api.createKey(storeId, undefined, 'live');
    expectError(await api.as(live).get(`/webhooks/${created.id}`), 404, 'not_found');
    expect((await api.as(live).get('/webhooks')).body.data).toEqual([]);
  });

  it('needs webhooks:read to read and webhooks:manage to change', async () => {
    const { body: created } = await create();
    const reader = await api.createKey(storeId, ['webhooks:read']);
    const manager = await api.createKey(storeId, ['webhooks:manage']);
    expect((await api.as(reader).get('/webhooks')).status).toBe(200);
    expect((await api.as(reader).get(`/webhooks/${created.id}/deliveries`)).status).toBe(200);
    expect((await api.as(reader).get('/events')).status).toBe(200);
    expectError(
      await api.as(reader).post('/webhooks', { url: URL, events: ['pix.paid'] }),
      403,
      'insufficient_scope',
    );
    expectError(await api.as(reader).patch(`/webhooks/${created.id}`, {}), 403, 'insufficient_scope');
    expectError(await api.as(reader).delete(`/webhooks/${created.id}`), 403, 'insufficient_scope');
    expectError(await api.as(reader).post(`/webhooks/${created.id}/test`), 403, 'insufficient_scope');
    expectError(await api.as(manager).get('/webhooks'), 403, 'insufficient_scope');
    expectError(await api.as(manager).get('/events'), 403, 'insufficient_scope');
  });

  it('replays a creation sent twice with the same Idempotency-Key (one endpoint, same secret)', async () => {
    const body = { url: 'https://idem.example.com/hook', events: ['pix.paid'] };
    const first = await api.as(key).post('/webhooks', body, { 'Idempotency-Key': 'wh-create-1' });
    const second = await api.as(key).post('/webhooks', body, { 'Idempotency-Key': 'wh-create-1' });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  describe('at most 10 endpoints per store', () => {
    it('accepts the 10th, refuses the 11th, and accepts again after a deletion', async () => {
      const store = await api.createStore();
      const post = () => api.as(store.key).post('/webhooks', { url: URL, events: ['sale.approved'] });
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await post();
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
      const eleventh = expectError(await post(), 400, 'invalid_request');
      expect(eleventh.message).toContain('10');
      await api.as(store.key).delete(`/webhooks/${ids[0]}`);
      expect((await post()).status).toBe(201);
      expectError(await post(), 400, 'invalid_request');
    });
  });

  it('lists newest first with cursors', async () => {
    const store = await api.createStore();
    const created: Array<{ id: string; created_at: string }> = [];
    for (let i = 0; i < 5; i++) {
      created.push((await api.as(store.key).post('/webhooks', { url: URL, events: ['pix.paid'] })).body);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await api
        .as(store.key)
        .get(`/webhooks?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((e: any) => e.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    const newestFirst = created
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
      .map((e) => e.id);
    expect(seen).toEqual(newestFirst);
  });
});
