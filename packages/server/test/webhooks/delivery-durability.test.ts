import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/platform/db/database.js';
import type { Database } from '../../src/platform/db/schema.js';
import { recordEvent } from '../../src/platform/outbox/outbox.js';
import { startDeliveryWorker } from '../../src/domain/webhooks/delivery/worker.js';
import type { JobLog } from '../../src/platform/jobs/worker.js';
import { spawnChild } from '../support/children.js';
import { startHttpsReceiver } from '../support/https-receiver.js';
import type { HttpsReceiver } from '../support/https-receiver.js';
import { TEST_SECRET, TestApi, describeEachDatabase } from '../support/test-api.js';
import { POSTGRES_URL } from '../support/test-databases.js';
import { TEST_DELIVERY, allowedHosts, createEndpoint, eventually, silentLog } from './delivery-harness.js';

const BIN = fileURLToPath(new URL('../../bin/storefront.js', import.meta.url));

/** Commits `count` checkout.created events for the store, as the API would, in one transaction. */
async function commitEvents(db: Kysely<Database>, storeId: string, count: number): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const event = await recordEvent(trx, {
        storeId,
        type: 'checkout.created',
        livemode: false,
        object: { n: i },
      });
      ids.push(event.id);
    }
    return ids;
  });
}

/** How many requests the receiver got for each event id. */
function countsByEvent(receiver: HttpsReceiver): Map<string, number> {
  const counts = new Map<string, number>();
  for (const request of receiver.requests) {
    const id = String(request.headers['service-event-id']);
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

const noJobsLeft = (db: Kysely<Database>) =>
  eventually(async () => (await db.selectFrom('webhook_jobs').select('id').execute()).length === 0, 30_000);

describeEachDatabase(
  'no event lost: a real worker process killed mid-batch',
  (api) => {
    let receiver: HttpsReceiver;
    let caFile: string;
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      // Each answer takes 200 ms, so a batch is still in flight when the worker is killed.
      receiver = await startHttpsReceiver({ port: 8443, defaultResponse: { status: 200, delayMs: 200 } });
      allowedHosts.add(receiver.host);
      caFile = join(mkdtempSync(join(tmpdir(), 'storefront-ca-')), 'receiver.pem');
      writeFileSync(caFile, receiver.ca);
    });
    afterAll(async () => {
      for (const child of children) child.kill('SIGKILL');
      await receiver?.close();
    });

    function spawnWorker(): ChildProcess {
      const child = spawnChild(process.execPath, [BIN, 'worker'], {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: api.database.url,
          ...api.database.env,
          STOREFRONT_SECRET: TEST_SECRET,
          STOREFRONT_WEBHOOK_ALLOWED_HOSTS: receiver.host,
          NODE_EXTRA_CA_CERTS: caFile,
          STOREFRONT_WEBHOOK_TIMEOUT_MS: '2000',
          STOREFRONT_WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      return child;
    }

    it('delivers every event at least once across kill -9 and restart, including one committed with no worker running', async () => {
      const { key, storeId } = await api.createStore();
      await createEndpoint(api, key, `${receiver.url}/durable`);
      const firstBatch = await commitEvents(api.db, storeId, 300);

      const first = spawnWorker();
      await receiver.waitForRequests(100, 20_000);
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));
      const receivedAtKill = countsByEvent(receiver).size;
      expect(receivedAtKill).toBeLessThan(firstBatch.length); // killed mid-batch

      // Committed while no worker runs at all.
      const whileDown = await commitEvents(api.db, storeId, 50);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(whileDown.some((id) => countsByEvent(receiver).has(id))).toBe(false);

      const second = spawnWorker();
      const all = [...firstBatch, ...whileDown];
      await eventually(async () => all.every((id) => countsByEvent(receiver).has(id)), 40_000);
      await noJobsLeft(api.db);
      second.kill('SIGTERM');
      const exitCode = await new Promise((resolve) => second.once('exit', (code) => resolve(code)));
      expect(exitCode).toBe(0); // graceful stop
      const counts = countsByEvent(receiver);
      expect(all.filter((id) => !counts.has(id))).toEqual([]);
    }, 90_000);
  },
  { config: { webhookAllowedHosts: allowedHosts } },
);

/** Counts a worker's delivered and failed attempts from its log. */
function countingLog(): JobLog & { delivered: number; failed: number } {
  const log = {
    ...silentLog,
    delivered: 0,
    failed: 0,
    debug(_obj: unknown, message?: string) {
      if (message === 'webhook delivered') log.delivered++;
    },
    info(_obj: unknown, message?: string) {
      if (message === 'webhook attempt failed') log.failed++;
    },
  };
  return log as JobLog & { delivered: number; failed: number };
}

(POSTGRES_URL ? describe : describe.skip)('two workers on PostgreSQL', () => {
  const api = new TestApi('postgres', { config: { webhookAllowedHosts: allowedHosts } });
  let receiver: HttpsReceiver;

  beforeAll(async () => {
    await api.start();
    receiver = await startHttpsReceiver({ port: 8443 });
    allowedHosts.add(receiver.host);
  });
  afterAll(async () => {
    await receiver?.close();
    await api.stop();
  });

  it('deliver 1,000 events with no attempt made twice', async () => {
    const { key, storeId } = await api.createStore();
    await createEndpoint(api, key, `${receiver.url}/pair`);
    const searchPath = /search_path=(\S+)/.exec(api.database.env.PGOPTIONS ?? '')?.[1];
    const otherPool = openDatabase(api.database.url, searchPath ? { searchPath } : {});
    // A generous timeout: a slow (loaded) machine must not turn into legitimate retries here, since
    // what is counted is requests per event.
    const config = { ...api.config, ...TEST_DELIVERY, webhookTimeoutMs: 15_000 };
    const logs = [countingLog(), countingLog()];
    // Eight in flight each: at the default 128, one worker's claim could take all hundred jobs of a
    // transaction before the other looked, every time on a loaded machine, and the other sent none.
    const concurrency = 8;
    const workers = [
      startDeliveryWorker({ db: api.db, config, log: logs[0]!, tls: { ca: receiver.ca }, concurrency }),
      startDeliveryWorker({
        db: otherPool.kysely,
        config,
        log: logs[1]!,
        tls: { ca: receiver.ca },
        concurrency,
      }),
    ];
    try {
      // Committed in several transactions while both workers poll, as a busy API would.
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(...(await commitEvents(api.db, storeId, 100)));
      await receiver.waitForRequests(1000, 60_000);
      await noJobsLeft(api.db);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const counts = countsByEvent(receiver);
      expect(counts.size).toBe(1000);
      expect([...counts.values()].filter((n) => n !== 1)).toEqual([]);
      expect(receiver.requests).toHaveLength(1000);
      expect(logs[0]!.failed + logs[1]!.failed).toBe(0);
      expect(logs[0]!.delivered + logs[1]!.delivered).toBe(1000);
      expect(logs[0]!.delivered).toBeGreaterThan(0); // both took part
      expect(logs[1]!.delivered).toBeGreaterThan(0);
      expect(ids.every((id) => counts.get(id) === 1)).toBe(true);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await otherPool.close();
    }
  }, 90_000);
});
