import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTcpProxy } from '../../../../bench/lib/tcp-proxy.mjs';
import type { TcpProxy } from '../../../../bench/lib/tcp-proxy.mjs';
import { createApiKey } from '../../src/platform/api-keys/api-keys.js';
import { SCOPES } from '../../src/platform/api-keys/scopes.js';
import { createStore } from '../../src/flows/create-store.js';
import { startHttpsReceiver } from '../support/https-receiver.js';
import type { HttpsReceiver } from '../support/https-receiver.js';
import { callApi, startServe, startWorker } from '../support/service-process.js';
import type { PlainResponse, ServiceProcess } from '../support/service-process.js';
import { POSTGRES_URL, createTestDatabase } from '../support/test-databases.js';
import type { TestDatabase } from '../support/test-databases.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { NO_POSTGRES, NO_REDIS, REDIS_URL, describeWhen } from '../support/requirements.js';

/**
 * Far above what the service promises (a 503 within about 5 s) and below the test's own timeout: a
 * request that hangs until its client gives up fails here, without timing anything exactly.
 */
const NEVER_HANG_MS = 15_000;

const WORKER_BACKING_OFF = 'webhook worker round failed; backing off';
const REDIS_DOWN = 'Redis unavailable; rate limits are counted per process until it answers again';
const REDIS_BACK = 'Redis answers again; rate limits are shared again';

function expectUnavailable(response: PlainResponse): void {
  expect(response.status, JSON.stringify(response.body)).toBe(503);
  expect(response.body.error.code).toBe('service_unavailable');
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

/** A store and a key with every scope, written straight into the test database. */
async function storeWithKey(database: TestDatabase): Promise<{ key: string; keyId: string }> {
  const store = await createStore(database.db.kysely, { name: 'Outage' });
  const key = await createApiKey(database.db.kysely, {
    storeId: store.id,
    mode: 'test',
    scopes: [...SCOPES],
  });
  return { key: key.key, keyId: key.id };
}

describeWhen(
  POSTGRES_URL,
  NO_POSTGRES,
  'PostgreSQL unreachable behind a TCP proxy (serve and worker)',
  () => {
    let database: TestDatabase;
    let proxy: TcpProxy;
    let receiver: HttpsReceiver;
    let serve: ServiceProcess;
    let worker: ServiceProcess;
    let url: string;
    let key: string;

    beforeAll(async () => {
      database = await createTestDatabase('postgres');
      ({ key } = await storeWithKey(database));
      const target = new URL(POSTGRES_URL!);
      proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
      target.host = `${proxy.host}:${proxy.port}`;
      receiver = await startHttpsReceiver({ port: 8443 });
      const caFile = join(mkdtempSync(join(tmpdir(), 'storefront-ca-')), 'receiver.pem');
      writeFileSync(caFile, receiver.ca);
      const env = {
        DATABASE_URL: target.href,
        ...database.env,
        STOREFRONT_WORKER: 'off',
        STOREFRONT_WEBHOOK_ALLOWED_HOSTS: receiver.host,
        NODE_EXTRA_CA_CERTS: caFile,
      };
      [{ process: serve, url }, worker] = await Promise.all([
        startServe('outage_serve', env),
        startWorker('outage_worker', env),
      ]);
      const endpoint = await callApi(url, 'POST', '/webhooks', {
        key,
        body: { url: `${receiver.url}/outage`, events: ['product.created'] },
      });
      expect(endpoint.status).toBe(201);
    }, 120_000);

    afterAll(async () => {
      await serve?.kill('SIGKILL');
      await worker?.kill('SIGKILL');
      await proxy?.close();
      await receiver?.close();
      await database?.drop();
    });

    const get = (path: string) => callApi(url, 'GET', path, { key, timeoutMs: NEVER_HANG_MS });
    const createProduct = (nome: string) =>
      callApi(url, 'POST', '/products', { key, body: { nome, preco: 10 }, timeoutMs: NEVER_HANG_MS });

    /** After the dependency returns: reads, writes and deliveries work again, with no one restarting anything. */
    async function expectRecovery(name: string): Promise<void> {
      await eventually(async () => (await get('/products')).status === 200, 30_000);
      expect((await get('//readyz')).status).toBe(200);
      const created = await createProduct(name);
      expect(created.status).toBe(201);
      await eventually(
        async () =>
          receiver.requests.some((request) => JSON.parse(request.body).data.object.id === created.body.id),
        30_000,
      );
      expect(serve.alive && worker.alive).toBe(true);
    }

    it('connections reset and refused (a restart): 503 with Retry-After, /readyz 503, the worker backs off once, all recover by themselves', async () => {
      expect((await get('/products')).status).toBe(200);
      proxy.cut();
      expectUnavailable(await get('/products'));
      expectUnavailable(await createProduct('Durante a queda'));
      expect((await get('//readyz')).status).toBe(503);
      await worker.waitFor(new RegExp(WORKER_BACKING_OFF), NEVER_HANG_MS);

      proxy.restore();
      await expectRecovery('Depois da queda');
      await worker.waitFor(/webhook worker recovered/, NEVER_HANG_MS);
      // One warning for the whole outage, not one per round.
      expect(worker.logLines(WORKER_BACKING_OFF)).toHaveLength(1);
    }, 90_000);

    it('connections open but silent (a partition): 503 instead of a hang, /readyz 503, recovery by itself', async () => {
      expect((await get('/products')).status).toBe(200);
      proxy.stall();
      const [read, write, ready] = await Promise.all([
        get('/products'),
        createProduct('Na partição'),
        get('//readyz'),
      ]);
      expectUnavailable(read);
      expectUnavailable(write);
      expect(ready.status).toBe(503);

      proxy.restore();
      await expectRecovery('Depois da partição');
      // Nothing written by the refused request.
      const names = (await get('/products?limit=100')).body.data.map((p: { nome: string }) => p.nome);
      expect(names).not.toContain('Na partição');
    }, 90_000);
  },
);

describeWhen(REDIS_URL, NO_REDIS, 'Redis unreachable or stalled behind a TCP proxy (rate limits)', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let redis: Redis;
  let serve: ServiceProcess;
  let url: string;
  let key: string;
  let counter: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const created = await storeWithKey(database);
    key = created.key;
    counter = `storefront:rl:${created.keyId}`;
    const target = new URL(REDIS_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    target.host = `${proxy.host}:${proxy.port}`;
    redis = new Redis(REDIS_URL!);
    ({ process: serve, url } = await startServe('redis_outage_serve', {
      DATABASE_URL: database.url,
      REDIS_URL: target.href,
    }));
  }, 120_000);

  afterAll(async () => {
    await serve?.kill('SIGKILL');
    await redis?.del(counter);
    redis?.disconnect();
    await proxy?.close();
    await database?.drop();
  });

  const status = async () =>
    (await callApi(url, 'GET', '/checkouts', { key, timeoutMs: NEVER_HANG_MS })).status;

  /**
   * This key's shared counter is set far past its limit, straight in Redis: a 429 then proves the
   * service consults Redis, and a 200 that it counts in-process.
   */
  async function exhaustSharedBudget(): Promise<void> {
    await redis.set(counter, 1_000_000_000, 'PX', 120_000);
  }

  it('answers from Redis while it is there (the exhausted shared budget refuses)', async () => {
    expect(await status()).toBe(200);
    await exhaustSharedBudget();
    expect(await status()).toBe(429);
  });

  for (const outage of ['stall', 'cut'] as const) {
    it(`Redis ${outage === 'stall' ? 'stalled (accepting, not answering)' : 'cut'}: in-process limits with one warning and no 429, then Redis again`, async () => {
      const warningsBefore = serve.logLines(REDIS_DOWN).length;
      const returnsBefore = serve.logLines(REDIS_BACK).length;
      proxy[outage]();
      const during = await Promise.all(Array.from({ length: 10 }, () => status()));
      expect(during).toEqual(Array(10).fill(200));
      expect(await status()).toBe(200);
      await eventually(async () => serve.logLines(REDIS_DOWN).length > warningsBefore, 5_000);

      proxy.restore();
      await exhaustSharedBudget();
      await eventually(async () => (await status()) === 429, 20_000);
      await eventually(async () => serve.logLines(REDIS_BACK).length === returnsBefore + 1, 5_000);
      // One warning for the whole outage, however many requests it met.
      expect(serve.logLines(REDIS_DOWN)).toHaveLength(warningsBefore + 1);
      expect(serve.output).not.toMatch(/Unhandled error event/);
      expect(serve.alive).toBe(true);
    }, 60_000);
  }
});
