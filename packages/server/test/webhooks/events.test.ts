import { beforeAll, expect, it } from 'vitest';
import { recordEvent } from '../../src/platform/outbox/outbox.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';

describeEachDatabase('GET /events and GET /events/{id}', (api) => {
  let key: string;
  let storeId: string;
  const created: Array<{ id: string; created_at: string }> = [];

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
    for (let i = 0; i < 7; i++) {
      const res = await api.as(key).post('/checkouts', { name: `Checkout ${i}` });
      expect(res.status).toBe(201);
    }
    const rows = await api.db
      .selectFrom('events')
      .select(['id', 'created_at'])
      .where('store_id', '=', storeId)
      .execute();
    created.push(...rows);
  });

  const newestFirst = () =>
    [...created]
      .sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id))
      .map((e) => e.id);

  it('lists the store’s events newest first, walking every page with cursors', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await api.as(key).get(`/events?limit=3${cursor ? `&starting_after=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.object).toBe('list');
      seen.push(...res.body.data.map((e: any) => e.id));
      cursor = res.body.next_cursor;
      expect(res.body.has_more).toBe(cursor !== null);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(newestFirst());
  });

  it('serves each event exactly as it was stored (and delivered)', async () => {
    const res = await api.as(key).get('/events?limit=1');
    const [event] = res.body.data;
    const stored = await api.db
      .selectFrom('events')
      .select('payload')
      .where('id', '=', event.id)
      .executeTakeFirstOrThrow();
    expect(event).toEqual(JSON.parse(stored.payload));
    expect(event).toMatchObject({ object: 'event', type: 'checkout.created', livemode: false });
    const one = await api.as(key).get(`/events/${event.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(event);
  });

  it('filters by type', async () => {
    await api
      .as(key)
      .post(`/webhooks`, { url: 'https://hooks.example.com/x', events: ['pix.paid'] })
      .then(async (r) => {
        await api.as(key).post(`/webhooks/${r.body.id}/test`);
      });
    const tests = await api.as(key).get('/events?type=webhook.test');
    expect(tests.body.data.map((e: any) => e.type)).toEqual(['webhook.test']);
    expect((await api.as(key).get('/events?type=sale.refunded')).body.data).toEqual([]);
  });

  it('isolates stores and modes: 404 and empty lists, never another store’s event', async () => {
    const other = await api.createStore();
    const [someId] = newestFirst();
    expectError(await api.as(other.key).get(`/events/${someId}`), 404, 'not_found');
    expect((await api.as(other.key).get('/events')).body.data).toEqual([]);

    const live = await api.createKey(storeId, undefined, 'live');
    expectError(await api.as(live).get(`/events/${someId}`), 404, 'not_found');
    const liveEvent = await api.db
      .transaction()
      .execute((trx) =>
        recordEvent(trx, { storeId, type: 'sale.approved', livemode: true, object: { id: 'x' } }),
      );
    expect((await api.as(live).get('/events')).body.data.map((e: any) => e.id)).toEqual([liveEvent.id]);
    expect((await api.as(key).get('/events?limit=100')).body.data.map((e: any) => e.id)).not.toContain(
      liveEvent.id,
    );
  });

  it('refuses bad ids, cursors, limits and unknown parameters', async () => {
    expectError(await api.as(key).get('/events/not-an-event'), 404, 'not_found');
    expectError(await api.as(key).get('/events/evt_doesnotexist'), 404, 'not_found');
    expectError(await api.as(key).get('/events?limit=0'), 400, 'invalid_request', 'limit');
    expectError(await api.as(key).get('/events?limit=101'), 400, 'invalid_request', 'limit');
    expectError(
      await api.as(key).get('/events?starting_after=forged'),
      400,
      'invalid_request',
      'starting_after',
    );
    expectError(await api.as(key).get('/events?since=yesterday'), 400, 'invalid_request', 'since');
    const other = await api.createStore();
    const { body } = await api.as(key).get('/events?limit=1');
    // A cursor of this listing for another store is refused too.
    expectError(
      await api.as(other.key).get(`/events?starting_after=${body.next_cursor}`),
      400,
      'invalid_request',
    );
  });
});
