import SqliteDatabase from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, afterEach, expect, it } from 'vitest';
import { dispatchEvents } from '../../src/domain/webhooks/delivery/dispatch.js';
import { onWake } from '../../src/platform/jobs/wake.js';
import { OUTBOX_WAKE, recordEvent } from '../../src/platform/outbox/outbox.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { createEndpoint } from './delivery-harness.js';

/**
 * An event recorded in the transaction of its change is dispatched there: its delivery jobs commit
 * with it, by the worker's own rule (active, same mode, subscribed, created no later than the event),
 * and no worker is running in these tests to do it afterwards.
 */
describeEachDatabase('webhook deliveries queued in the transaction that records the event', (api) => {
  const wakes: string[] = [];
  const stopListening = onWake((name) => wakes.push(name));
  afterEach(() => void (wakes.length = 0));
  afterAll(() => stopListening());

  const jobsOf = (eventId: string) =>
    api.db
      .selectFrom('webhook_jobs')
      .select(['endpoint_id', 'attempts', 'lease'])
      .where('event_id', '=', eventId)
      .orderBy('endpoint_id')
      .execute();
  const eventsOf = (storeId: string) =>
    api.db.selectFrom('events').selectAll().where('store_id', '=', storeId).orderBy('created_at').execute();

  it('one job per endpoint of the mode, active and subscribed to the type, as the request answers', async () => {
    const { key, storeId } = await api.createStore();
    const liveKey = await api.createKey(storeId, undefined, 'live');
    const wanted = await createEndpoint(api, key, 'https://hooks.example.com/wanted');
    const second = await createEndpoint(api, key, 'https://hooks.example.com/second');
    await createEndpoint(api, key, 'https://hooks.example.com/products', { events: ['product.created'] });
    const paused = await createEndpoint(api, key, 'https://hooks.example.com/paused');
    expect((await api.as(key).patch(`/webhooks/${paused.id}`, { status: 'paused' })).status).toBe(200);
    await createEndpoint(api, liveKey, 'https://hooks.example.com/live');
    wakes.length = 0;

    expect((await api.as(key).post('/checkouts', { name: 'Loja' })).status).toBe(201);

    const [event] = await eventsOf(storeId);
    expect(event).toMatchObject({ type: 'checkout.created', dispatched_at: event!.created_at });
    expect(await jobsOf(event!.id)).toEqual(
      [wanted.id, second.id].sort().map((endpoint_id) => ({ endpoint_id, attempts: 0, lease: null })),
    );
    // Woken once, after the commit, to send them.
    expect(wakes).toEqual([OUTBOX_WAKE]);
  });

  it('an event no endpoint wants is dispatched to nobody, and wakes no worker', async () => {
    const { key, storeId } = await api.createStore();
    await createEndpoint(api, key, 'https://hooks.example.com/products', { events: ['product.created'] });
    wakes.length = 0;
    await api.as(key).post('/checkouts', { name: 'Loja' });
    const [event] = await eventsOf(storeId);
    expect(event!.dispatched_at).toBe(event!.created_at);
    expect(await jobsOf(event!.id)).toEqual([]);
    expect(wakes).toEqual([]);
  });

  it('a transaction rolled back leaves neither the event nor its jobs', async () => {
    const { key, storeId } = await api.createStore();
    await createEndpoint(api, key, 'https://hooks.example.com/wanted');
    await expect(
      api.db.transaction().execute(async (trx) => {
        await recordEvent(trx, { storeId, type: 'checkout.created', livemode: false, object: {} });
        expect(
          await trx.selectFrom('webhook_jobs').select('id').where('store_id', '=', storeId).execute(),
        ).toHaveLength(1);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await eventsOf(storeId)).toEqual([]);
    expect(
      await api.db.selectFrom('webhook_jobs').select('id').where('store_id', '=', storeId).execute(),
    ).toEqual([]);
    expect(wakes).toEqual([]);
  });

  it('recorded outside a transaction, an event waits for the worker’s dispatcher, which queues the same', async () => {
    const { key, storeId } = await api.createStore();
    const wanted = await createEndpoint(api, key, 'https://hooks.example.com/wanted');
    wakes.length = 0;
    const { id } = await recordEvent(api.db, {
      storeId,
      type: 'checkout.created',
      livemode: false,
      object: {},
    });
    expect((await eventsOf(storeId))[0]!.dispatched_at).toBeNull();
    expect(await jobsOf(id)).toEqual([]);
    expect(wakes).toEqual([OUTBOX_WAKE]);
    expect(await dispatchEvents(api.db, 100)).toBeGreaterThanOrEqual(1);
    expect((await eventsOf(storeId))[0]!.dispatched_at).not.toBeNull();
    expect(await jobsOf(id)).toEqual([{ endpoint_id: wanted.id, attempts: 0, lease: null }]);
  });

  it('with nothing waiting, the dispatcher returns without taking the write lock another holds', async () => {
    await dispatchEvents(api.db, 1000); // whatever earlier tests left
    const release = await holdEventsWriteLock(api);
    let returned = false;
    const dispatched = dispatchEvents(api.db, 100).then((n) => {
      returned = true;
      return n;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(returned).toBe(true);
    } finally {
      await release();
    }
    expect(await dispatched).toBe(0);
  });
});

/** Another connection holds what the dispatcher's claim would wait for; the answer releases it. */
async function holdEventsWriteLock(api: TestApi): Promise<() => Promise<void>> {
  if (api.dialect === 'sqlite') {
    const other = new SqliteDatabase(api.database.url.slice('sqlite:'.length));
    other.exec('begin immediate');
    return async () => {
      other.exec('rollback');
      other.close();
    };
  }
  // PostgreSQL: EXCLUSIVE lets plain reads through and stops the claim's UPDATE.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holder = api.db.transaction().execute(async (trx) => {
    await sql`lock table events in exclusive mode`.execute(trx);
    locked();
    await released;
  });
  await isLocked;
  return async () => {
    release();
    await holder;
  };
}
