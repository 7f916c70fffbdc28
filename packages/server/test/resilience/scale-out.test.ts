import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/platform/api-keys/api-keys.js';
import { SCOPES } from '../../src/platform/api-keys/scopes.js';
import { openDatabase } from '../../src/platform/db/database.js';
import type { Db } from '../../src/platform/db/database.js';
import { EVENT_TYPES } from '../../src/platform/outbox/event-types.js';
import { randomBase62 } from '../../src/platform/values/ids.js';
import { startHttpsReceiver } from '../support/https-receiver.js';
import type { HttpsReceiver } from '../support/https-receiver.js';
import { REDIS_URL, describeWhen } from '../support/requirements.js';
import { callApi, startServe, startWorker } from '../support/service-process.js';
import type { PlainResponse, ServiceProcess } from '../support/service-process.js';
import { POSTGRES_URL } from '../support/test-databases.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { DEMO_STORE_NAME } from '../../src/flows/demo-store.js';

/** Requests per second per key on both nodes: low enough to exceed on purpose, high enough for the load. */
const RATE_LIMIT = 30;
/** Concurrent clients, each with a key of its own, paced well under the rate limit. */
const CLIENTS = 3;
const MIN_REQUEST_GAP_MS = 60;
/** Iterations per client after the killed processes are back (each: a product, a charge, its payment). */
const ITERATIONS_AFTER_RESTART = 3;
/** Bound on the whole load, whatever the machine's speed. */
const MAX_ITERATIONS = 40;

interface ApiNode {
  name: string;
  process: ServiceProcess;
  url: string;
}

interface Sample {
  node: string;
  status: number | 'network_error';
  startedAt: number;
  ms: number;
}

/**
 * A deployment as the operations docs describe it: two API nodes (STOREFRONT_WORKER=off) and two
 * `storefront worker` processes, all real child processes on one PostgreSQL schema and one Redis.
 */
describeWhen(
  POSTGRES_URL && REDIS_URL,
  'needs STOREFRONT_TEST_DATABASE_URL and STOREFRONT_TEST_REDIS_URL (PostgreSQL and Redis)',
  'scale-out: two API nodes and two workers on one PostgreSQL and Redis',
  () => {
    const schema = `sf_test_${randomBase62(12).toLowerCase()}`;
    const tag = schema.slice('sf_test_'.length);
    let admin: pg.Client;
    let db: Db;
    let redis: Redis;
    let receiver: HttpsReceiver;
    let env: Record<string, string>;
    let storeId: string;
    let demoKey: string;
    const nodes: ApiNode[] = [];
    const workers: ServiceProcess[] = [];

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: POSTGRES_URL! });
      await admin.connect();
      await admin.query(`create schema ${schema}`); // empty: the nodes migrate it themselves
      redis = new Redis(REDIS_URL!);
      receiver = await startHttpsReceiver({ port: 8443 });
      const caFile = join(mkdtempSync(join(tmpdir(), 'storefront-ca-')), 'receiver.pem');
      writeFileSync(caFile, receiver.ca);
      env = {
        DATABASE_URL: POSTGRES_URL!,
        PGOPTIONS: `-c search_path=${schema}`,
        REDIS_URL: REDIS_URL!,
        STOREFRONT_WORKER: 'off',
        STOREFRONT_RATE_LIMIT: String(RATE_LIMIT),
        STOREFRONT_WEBHOOK_ALLOWED_HOSTS: receiver.host,
        NODE_EXTRA_CA_CERTS: caFile,
        STOREFRONT_WEBHOOK_TIMEOUT_MS: '2000',
        STOREFRONT_WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s,2s',
      };
      // Both API nodes start at once on the empty database.
      const started = await Promise.all([startServe(`${tag}_a`, env), startServe(`${tag}_b`, env)]);
      started.forEach(({ process, url }, i) => nodes.push({ name: 'ab'[i]!, process, url }));
      workers.push(...(await Promise.all([startWorker(`${tag}_w1`, env), startWorker(`${tag}_w2`, env)])));
      db = openDatabase(POSTGRES_URL!, { searchPath: schema });
    }, 150_000);

    afterAll(async () => {
      for (const child of [...nodes.map((node) => node.process), ...workers]) await child.kill('SIGKILL');
      await db?.close();
      await receiver?.close();
      redis?.disconnect();
      await admin?.query(`drop schema if exists ${schema} cascade`);
      await admin?.end();
    });

    const keyFor = async () =>
      (await createApiKey(db.kysely, { storeId, mode: 'test', scopes: [...SCOPES] })).key;

    it('both nodes started at once on the empty database came up with one Demo store and one printed key', async () => {
      const stores = await db.kysely.selectFrom('stores').select(['id', 'name']).execute();
      expect(stores.map((store) => store.name)).toEqual([DEMO_STORE_NAME]);
      storeId = stores[0]!.id;
      const printed = () => [
        ...new Set(nodes.flatMap((node) => node.process.output.match(/sk_test_[0-9A-Za-z]{40}/g) ?? [])),
      ];
      const keys = await eventually(async () => printed().length > 0 && printed(), 10_000);
      expect(keys).toHaveLength(1);
      demoKey = keys[0]!;
    });

    it('under load, with a worker and an API node killed (SIGKILL) and restarted: every event reaches the receiver, no 5xx', async () => {
      const endpoint = await callApi(nodes[0]!.url, 'POST', '/webhooks', {
        key: demoKey,
        body: { url: `${receiver.url}/scale-out`, events: [...EVENT_TYPES] },
      });
      expect(endpoint.status).toBe(201);

      const samples: Sample[] = [];
      let turn = 0;
      /** One request through whichever node is up, retried on the other after a network failure. */
      async function send(
        key: string,
        method: string,
        path: string,
        body?: unknown,
        idempotencyKey?: string,
      ) {
        for (let attempt = 0; attempt < 10; attempt++) {
          const node = nodes[turn++ % nodes.length]!;
          const startedAt = performance.now();
          try {
            const response = await callApi(node.url, method, path, {
              key,
              ...(body !== undefined && { body }),
              ...(idempotencyKey && { headers: { 'Idempotency-Key': idempotencyKey } }),
            });
            samples.push({
              node: node.name,
              status: response.status,
              startedAt,
              ms: performance.now() - startedAt,
            });
            const pause = MIN_REQUEST_GAP_MS - (performance.now() - startedAt);
            if (pause > 0) await sleep(pause);
            return Object.assign(response, { retried: attempt > 0 });
          } catch {
            samples.push({
              node: node.name,
              status: 'network_error',
              startedAt,
              ms: performance.now() - startedAt,
            });
            await sleep(100);
          }
        }
        throw new Error(`${method} ${path}: no node answered`);
      }

      /**
       * A request retried after its node was killed mid-request. Its Idempotency-Key is written only
       * with its answer, in the creation's transaction, so the dead request left nothing and the retry
       * runs again; a 409 `idempotency_conflict` (the key of a request still running) is still the
       * documented answer to such a retry, not a failure: the load goes on with the next item.
       */
      let ambiguous = 0;
      const lostInFlight = (response: PlainResponse & { retried: boolean }) => {
        const lost =
          response.retried &&
          response.status === 409 &&
          response.body?.error?.code === 'idempotency_conflict';
        if (lost) ambiguous++;
        return lost;
      };

      let completed = 0;
      let restarted = false;
      async function client(index: number): Promise<void> {
        const key = await keyFor();
        let afterRestart = 0;
        for (let i = 0; i < MAX_ITERATIONS && afterRestart < ITERATIONS_AFTER_RESTART; i++) {
          const wasRestarted = restarted;
          const product = await send(
            key,
            'POST',
            '/products',
            { nome: `Carga ${index}-${i}`, preco: 10 },
            `p-${index}-${i}`,
          );
          if (lostInFlight(product)) continue;
          expect(product.status).toBe(201);
          const charge = await send(key, 'POST', '/payments/pix', { amount: 10 }, `c-${index}-${i}`);
          if (lostInFlight(charge)) continue;
          expect(charge.status).toBe(201);
          const paid: PlainResponse = await send(
            key,
            'POST',
            `/payments/pix/${charge.body.id}/simulate_payment`,
          );
          // A retry after the node died mid-request finds the charge already paid.
          expect([200, 400], JSON.stringify(paid.body)).toContain(paid.status);
          completed++;
          if (wasRestarted) afterRestart++;
        }
      }

      const load = Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i)));
      await eventually(async () => completed >= CLIENTS * 2, 60_000);

      const killedAt = performance.now();
      // Killed while still in the rotation, as a crash is: its requests in flight are lost and the
      // clients retry them on the other node, with the same Idempotency-Key.
      const nodeB = nodes[1]!;
      const worker1 = workers.shift()!;
      await Promise.all([nodeB.process.kill('SIGKILL'), worker1.kill('SIGKILL')]);
      nodes.splice(nodes.indexOf(nodeB), 1); // then out of the rotation, as a failed health check takes it
      const [{ process, url }, worker] = await Promise.all([
        startServe(`${tag}_b2`, env),
        startWorker(`${tag}_w1b`, env),
      ]);
      nodes.push({ name: 'b2', process, url });
      workers.push(worker);
      const restartedAt = performance.now();
      restarted = true;
      await load;

      // Every event recorded since the endpoint exists, as GET /events lists them.
      const since = endpoint.body.created_at as string;
      const events: string[] = [];
      for (let cursor: string | null = null; ;) {
        const page = await callApi(
          nodes[0]!.url,
          'GET',
          `/events?limit=100${cursor ? `&starting_after=${cursor}` : ''}`,
          {
            key: demoKey,
          },
        );
        expect(page.status).toBe(200);
        events.push(
          ...page.body.data
            .filter((e: { created_at: string }) => e.created_at >= since)
            .map((e: { id: string }) => e.id),
        );
        cursor = page.body.next_cursor;
        if (!cursor) break;
      }
      const received = () => {
        const counts = new Map<string, number>();
        for (const request of receiver.requests) {
          const id = String(request.headers['service-event-id']);
          counts.set(id, (counts.get(id) ?? 0) + 1);
        }
        return counts;
      };
      await eventually(async () => events.every((id) => received().has(id)), 60_000).catch(() => undefined);
      const counts = received();
      const lost = events.filter((id) => !counts.has(id));
      const duplicates = events.filter((id) => (counts.get(id) ?? 0) > 1).length;

      const answered = samples.filter((s) => s.status !== 'network_error');
      const p99 = (list: Sample[]) => {
        const sorted = list.map((s) => s.ms).sort((a, b) => a - b);
        return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0);
      };
      const duringKills = answered.filter(
        (s) => s.startedAt >= killedAt && s.startedAt <= restartedAt + 1000,
      );
      console.log(
        `scale-out figures: ${JSON.stringify({
          events: events.length,
          lost: lost.length,
          duplicates,
          requests: samples.length,
          network_errors: samples.length - answered.length,
          retries_told_still_running: ambiguous,
          p99_ms_overall: p99(answered),
          p99_ms_during_kills: p99(duringKills),
          requests_during_kills: duringKills.length,
          restart_ms: Math.round(restartedAt - killedAt),
        })}`,
      );

      expect(lost).toEqual([]);
      expect(events.length).toBeGreaterThanOrEqual(CLIENTS * 4 * 3);
      // No node ever answered a 5xx: the survivor throughout, the killed one only lost connections.
      expect(answered.filter((s) => Number(s.status) >= 500)).toEqual([]);
      expect(samples.filter((s) => s.status === 'network_error' && s.node === 'a')).toEqual([]);
      // The products made are exactly the ones asked for, however the retries went.
      const products = await db.kysely
        .selectFrom('products')
        .select('nome')
        .where('nome', 'like', 'Carga %')
        .execute();
      expect(new Set(products.map((p) => p.nome)).size).toBe(products.length);
    }, 180_000);

    it('the same Idempotency-Key sent to both nodes at once makes one row', async () => {
      const key = await keyFor();
      const body = { nome: 'Uma vez só', preco: 10 };
      const answers = await Promise.all(
        nodes.map((node) =>
          callApi(node.url, 'POST', '/products', { key, body, headers: { 'Idempotency-Key': 'both-nodes' } }),
        ),
      );
      for (const answer of answers) expect([201, 409]).toContain(answer.status);
      expect(answers.map((a) => a.status)).toContain(201);
      const rows = await db.kysely
        .selectFrom('products')
        .select('id')
        .where('nome', '=', 'Uma vez só')
        .execute();
      expect(rows).toHaveLength(1);
    });

    it("a key's rate limit holds across both nodes: one shared budget, not one per node", async () => {
      const created = await createApiKey(db.kysely, { storeId, mode: 'test', scopes: [...SCOPES] });
      const started = performance.now();
      const burst = await Promise.all(
        Array.from({ length: 3 * RATE_LIMIT }, (_, i) =>
          callApi(nodes[i % 2]!.url, 'GET', '/checkouts', { key: created.key }),
        ),
      );
      // Windows of one second, counted from the first request: how many the burst can have touched.
      const windows = Math.ceil((performance.now() - started) / 1000) + 1;
      const ok = burst.filter((r) => r.status === 200).length;
      expect(ok).toBeLessThanOrEqual(RATE_LIMIT * windows);
      // Within two windows, 3x the rate cannot all pass (a slow machine may stretch the burst further).
      if (windows <= 2) expect(burst.map((r) => r.status)).toContain(429);

      // The budget is the one counter in Redis: exhausted there, both nodes refuse.
      await redis.set(`storefront:rl:${created.id}`, 1_000_000_000, 'PX', 60_000);
      for (const node of nodes)
        expect((await callApi(node.url, 'GET', '/checkouts', { key: created.key })).status).toBe(429);
      await redis.del(`storefront:rl:${created.id}`);
    });
  },
);
