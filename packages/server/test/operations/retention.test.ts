import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrations/migrate.js';
import { pruneOldRows, startRetention } from '../../src/flows/retention.js';
import { prefixedId } from '../../src/platform/values/ids.js';
import { createStore } from '../../src/flows/create-store.js';
import { jobRow } from '../../src/domain/webhooks/delivery-jobs.js';
import { runCli } from '../support/cli.js';
import type { TestApi } from '../support/test-api.js';
import { describeEachDatabase } from '../support/test-api.js';

const DAY_MS = 86_400_000;
const NOW = new Date('2026-11-24T12:00:00.000Z');
const CUTOFF = NOW.getTime() - 30 * DAY_MS;
const at = (ms: number) => new Date(ms).toISOString();
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** An event row of a chosen age, fanned out (dispatched) at that time unless told otherwise. */
function eventRow(storeId: string, createdAt: string, dispatched = true) {
  const id = prefixedId('evt');
  return {
    id,
    store_id: storeId,
    type: 'checkout.created',
    livemode: 0,
    payload: JSON.stringify({ id }),
    created_at: createdAt,
    dispatched_at: dispatched ? createdAt : null,
  };
}

/** Writes history rows as they would be after delivery, with chosen ages. */
function fixtures(api: TestApi, storeId: string) {
  const db = api.db;
  return {
    async event(createdAt: string, dispatched = true): Promise<string> {
      const row = eventRow(storeId, createdAt, dispatched);
      await db.insertInto('events').values(row).execute();
      return row.id;
    },
    async attempt(endpointId: string, eventId: string, createdAt: string): Promise<string> {
      const id = prefixedId('whd');
      await db
        .insertInto('webhook_deliveries')
        .values({
          id,
          store_id: storeId,
          endpoint_id: endpointId,
          event_id: eventId,
          event_type: 'checkout.created',
          attempt: 1,
          response_status: 200,
          delivered_at: createdAt,
          failed_at: null,
          next_retry_at: null,
          created_at: createdAt,
        })
        .execute();
      return id;
    },
  };
}

const idsIn = async (api: TestApi, table: 'events' | 'webhook_deliveries', ids: string[]) =>
  new Set((await api.db.selectFrom(table).select('id').where('id', 'in', ids).execute()).map((r) => r.id));

describeEachDatabase('retention', (api) => {
  it('prunes what is past the window and keeps what is just inside it', async () => {
    const { storeId } = await api.createStore();
    const rows = fixtures(api, storeId);
    const inside = await rows.event(at(CUTOFF + 1));
    const onTheEdge = await rows.event(at(CUTOFF));
    const outside = await rows.event(at(CUTOFF - 1));
    const ancient = await rows.event(at(CUTOFF - 400 * DAY_MS));

    const report = await pruneOldRows(api.db, { olderThanDays: 30, now: NOW });
    expect(report.events).toBeGreaterThanOrEqual(2);
    expect(await idsIn(api, 'events', [inside, onTheEdge, outside, ancient])).toEqual(
      new Set([inside, onTheEdge]),
    );
  });

  it('keeps undelivered events: not fanned out yet, still queued, or named by a kept attempt', async () => {
    const { storeId, key } = await api.createStore();
    const rows = fixtures(api, storeId);
    const old = at(CUTOFF - DAY_MS);
    const endpoint = (
      await api
        .as(key)
        .post('/webhooks', { url: 'https://hooks.example.com/r', events: ['checkout.created'] })
    ).body;
    const undispatched = await rows.event(old, false);
    const queued = await rows.event(old);
    await api.db
      .insertInto('webhook_jobs')
      .values(jobRow({ storeId, endpointId: endpoint.id, eventId: queued }))
      .execute();
    const attempted = await rows.event(old);
    await rows.attempt(endpoint.id, attempted, old);
    const delivered = await rows.event(old);

    await pruneOldRows(api.db, { olderThanDays: 30, now: NOW });
    expect(await idsIn(api, 'events', [undispatched, queued, attempted, delivered])).toEqual(
      new Set([undispatched, queued, attempted]),
    );
  });

  it("keeps each endpoint's last 20 attempts whatever their age, in small batches, and every resource row", async () => {
    const { storeId, key } = await api.createStore();
    const rows = fixtures(api, storeId);
    const create = (path: string) =>
      api
        .as(key)
        .post('/webhooks', { url: `https://hooks.example.com/${path}`, events: ['checkout.created'] });
    const busy = (await create('busy')).body;
    const quietEndpoint = (await create('quiet')).body;
    // 25 old attempts on one endpoint, oldest first, each with its own event; 3 on another.
    const busyAttempts: string[] = [];
    const busyEvents: string[] = [];
    for (let i = 0; i < 25; i++) {
      const when = at(CUTOFF - (100 - i) * DAY_MS);
      busyEvents.push(await rows.event(when));
      busyAttempts.push(await rows.attempt(busy.id, busyEvents[i]!, when));
    }
    const quietAttempts: string[] = [];
    for (let i = 0; i < 3; i++) {
      const when = at(CUTOFF - 200 * DAY_MS);
      quietAttempts.push(await rows.attempt(quietEndpoint.id, await rows.event(when), when));
    }
    const checkout = (await api.as(key).post('/checkouts', { name: 'Antiga' })).body;
    await api.db
      .updateTable('checkouts')
      .set({ created_at: at(CUTOFF - 500 * DAY_MS) })
      .where('id', '=', checkout.id)
      .execute();

    // Batches of 2 rows: many short deletes, and the kept rows between them are stepped over.
    await pruneOldRows(api.db, { olderThanDays: 30, now: NOW, batchSize: 2, pauseMs: 0 });

    expect(await idsIn(api, 'webhook_deliveries', busyAttempts)).toEqual(new Set(busyAttempts.slice(5)));
    expect(await idsIn(api, 'webhook_deliveries', quietAttempts)).toEqual(new Set(quietAttempts));
    // The events only the pruned attempts named went in the same run; the rest are still referenced.
    expect(await idsIn(api, 'events', busyEvents)).toEqual(new Set(busyEvents.slice(5)));
    const history = await api.as(key).get(`/webhooks/${busy.id}/deliveries?limit=100`);
    expect(history.body.data.map((d: { id: string }) => d.id)).toEqual(busyAttempts.slice(5).reverse());
    expect((await api.as(key).get(`/checkouts/${checkout.id}`)).status).toBe(200);
    expect((await api.as(key).get(`/webhooks/${busy.id}`)).status).toBe(200);
  });

  it('runs once at start when the service starts it', async () => {
    const { storeId } = await api.createStore();
    const gone = await fixtures(api, storeId).event(at(Date.now() - 31 * DAY_MS));
    const runner = startRetention(api.db, { olderThanDays: 30, log: quiet });
    await runner.stop(); // waits for the run in progress
    expect(await idsIn(api, 'events', [gone])).toEqual(new Set());
  });
});

describe('retention settings and `storefront prune`', () => {
  const sqlite = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-prune-')), 'db.sqlite')}`;

  it('reads STOREFRONT_RETENTION_DAYS: default 30, 1..3650, anything else names the variable', () => {
    expect(loadConfig({ DATABASE_URL: sqlite() }).retentionDays).toBe(30);
    expect(loadConfig({ DATABASE_URL: sqlite(), STOREFRONT_RETENTION_DAYS: '1' }).retentionDays).toBe(1);
    expect(loadConfig({ DATABASE_URL: sqlite(), STOREFRONT_RETENTION_DAYS: '3650' }).retentionDays).toBe(
      3650,
    );
    for (const bad of ['0', '3651', '7d', '-1']) {
      const attempt = () => loadConfig({ DATABASE_URL: sqlite(), STOREFRONT_RETENTION_DAYS: bad });
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(/^STOREFRONT_RETENTION_DAYS:/);
    }
  });

  it('prunes once with --older-than and reports per table; a bad value exits non-zero', async () => {
    const url = sqlite();
    const db = openDatabase(url);
    await migrateToLatest(db.kysely);
    const store = await createStore(db.kysely, { name: 'Loja' });
    await db.kysely
      .insertInto('events')
      .values(eventRow(store.id, at(Date.now() - 10 * DAY_MS)))
      .execute();
    // A subscription creation's progress, long finished: transient, so it goes with the window.
    await db.kysely
      .insertInto('subscription_creations')
      .values({
        id: 'scr_old',
        store_id: store.id,
        livemode: 1,
        retry_key: 'k',
        subscription_id: 'sub_old',
        charge_id: 'pix_old',
        txid: 'pixold000000000000000000000',
        loc_id: 1,
        loc_location: 'psp.example.com/qr/v2/rec/1',
        id_rec: null,
        completed_at: at(Date.now() - 10 * DAY_MS),
        claimed_until: null,
        created_at: at(Date.now() - 10 * DAY_MS),
      })
      .execute();
    await db.close();
    const env = { DATABASE_URL: url };

    const keep = JSON.parse((await runCli(env, 'prune', '--json')).stdout);
    expect(keep).toEqual({
      older_than_days: 30,
      pruned: {
        webhook_deliveries: 0,
        events: 0,
        pix_callbacks: 0,
        conversion_events: 0,
        subscription_creations: 0,
      },
    });
    const cut = JSON.parse((await runCli(env, 'prune', '--older-than', '9', '--json')).stdout);
    expect(cut).toEqual({
      older_than_days: 9,
      pruned: {
        webhook_deliveries: 0,
        events: 1,
        pix_callbacks: 0,
        conversion_events: 0,
        subscription_creations: 1,
      },
    });

    const refused = await runCli(env, 'prune', '--older-than', 'soon');
    expect(refused).toMatchObject({ code: 1 });
    expect(refused.stderr).toMatch(/--older-than must be a whole number of days/);
  });
});
