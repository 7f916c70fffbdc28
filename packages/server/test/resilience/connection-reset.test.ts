import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApiKey } from '../../src/platform/api-keys/api-keys.js';
import { SCOPES } from '../../src/platform/api-keys/scopes.js';
import { createStore } from '../../src/flows/create-store.js';
import { startHttpsReceiver } from '../support/https-receiver.js';
import type { HttpsReceiver } from '../support/https-receiver.js';
import { callApi, startServe, startWorker } from '../support/service-process.js';
import type { ServiceProcess } from '../support/service-process.js';
import { POSTGRES_URL, createTestDatabase } from '../support/test-databases.js';
import type { TestDatabase } from '../support/test-databases.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { NO_POSTGRES, describeWhen } from '../support/requirements.js';

const IDLE_LOST = 'database connection lost while idle; discarded, the next query opens a fresh one';

/**
 * What a PostgreSQL restart, a failover or a pooler's idle timeout does to a running deployment:
 * every backend of the service ends at once. Only this suite's own processes are touched (found by
 * their application_name); PostgreSQL is shared with other suites.
 */
describeWhen(POSTGRES_URL, NO_POSTGRES, 'PostgreSQL connection reset (serve and worker processes)', () => {
  let database: TestDatabase;
  let admin: pg.Client;
  let receiver: HttpsReceiver;
  let serve: ServiceProcess;
  let worker: ServiceProcess;
  let url: string;
  let key: string;
  const names = { serve: '', worker: '' };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const store = await createStore(database.db.kysely, { name: 'Reset' });
    key = (await createApiKey(database.db.kysely, { storeId: store.id, mode: 'test', scopes: [...SCOPES] }))
      .key;
    receiver = await startHttpsReceiver({ port: 8443 });
    const caFile = join(mkdtempSync(join(tmpdir(), 'storefront-ca-')), 'receiver.pem');
    writeFileSync(caFile, receiver.ca);
    const schema = /search_path=(\w+)/.exec(database.env.PGOPTIONS!)![1]!;
    names.serve = `${schema}_serve`;
    names.worker = `${schema}_worker`;
    const env = {
      DATABASE_URL: database.url,
      ...database.env,
      STOREFRONT_WORKER: 'off',
      STOREFRONT_WEBHOOK_ALLOWED_HOSTS: receiver.host,
      NODE_EXTRA_CA_CERTS: caFile,
    };
    [{ process: serve, url }, worker] = await Promise.all([
      startServe(names.serve, env),
      startWorker(names.worker, env),
    ]);
    admin = new pg.Client({ connectionString: POSTGRES_URL! });
    await admin.connect();
  }, 120_000);

  afterAll(async () => {
    await serve?.kill('SIGKILL');
    await worker?.kill('SIGKILL');
    await admin?.end();
    await receiver?.close();
    await database?.drop();
  });

  /** Ends every backend of the given application names, as `pg_terminate_backend` after a restart would. */
  async function terminate(...applicationNames: string[]): Promise<number> {
    const { rows } = await admin.query(
      `select pid, pg_terminate_backend(pid) from pg_stat_activity
        where application_name = any($1) and pid <> pg_backend_pid()`,
      [applicationNames],
    );
    const pids = rows.map((row) => row.pid as number);
    // Returned once those backends have exited (and so closed their sockets to the service).
    await eventually(async () => {
      const left = await admin.query('select 1 from pg_stat_activity where pid = any($1)', [pids]);
      return left.rows.length === 0;
    }, 10_000);
    return pids.length;
  }

  it('fails the request in flight with 503, keeps both processes alive, and serves the next ones on fresh connections', async () => {
    const endpoint = await callApi(url, 'POST', '/webhooks', {
      key,
      body: { url: `${receiver.url}/reset`, events: ['product.created'] },
    });
    expect(endpoint.status).toBe(201);
    const locker = new pg.Client({ connectionString: POSTGRES_URL!, options: database.env.PGOPTIONS! });
    await locker.connect();
    const lockProducts = async () => {
      await locker.query('begin');
      await locker.query('lock table products in access exclusive mode');
    };
    const waitingOnTheLock = async (count: number) =>
      eventually(async () => {
        const { rows } = await admin.query(
          `select 1 from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'`,
          [names.serve],
        );
        return rows.length >= count;
      }, 10_000);

    // Several idle connections in the serve process's pool, for certain: reads that all wait on one
    // lock hold a connection each, and go back to the pool together once it is released.
    await lockProducts();
    const warmup = Array.from({ length: 4 }, () => callApi(url, 'GET', '/products', { key }));
    await waitingOnTheLock(4);
    await locker.query('rollback');
    expect((await Promise.all(warmup)).map((r) => r.status)).toEqual(Array(4).fill(200));

    // A request held inside PostgreSQL (waiting on a lock this test holds) is in flight at the reset.
    await lockProducts();
    const inFlight = callApi(url, 'POST', '/products', { key, body: { nome: 'Em voo', preco: 10 } });
    await waitingOnTheLock(1);

    expect(await terminate(names.serve, names.worker)).toBeGreaterThan(1);
    const failed = await inFlight;
    await locker.query('rollback');
    await locker.end();
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('service_unavailable');
    expect(Number(failed.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // The next requests succeed on fresh connections: a read and a write.
    expect((await callApi(url, 'GET', '/products', { key })).status).toBe(200);
    const created = await callApi(url, 'POST', '/products', { key, body: { nome: 'Depois', preco: 10 } });
    expect(created.status).toBe(201);
    // The worker process came back too: it delivers the event of that write.
    const [delivered] = await receiver.waitForRequests(1, 20_000);
    expect(JSON.parse(delivered!.body).data.object.id).toBe(created.body.id);

    expect(serve.alive && worker.alive).toBe(true);
    // The idle connections' loss is one warning, not one per connection, and never a crash.
    expect(serve.logLines(IDLE_LOST)).toHaveLength(1);
    expect(serve.logLines(IDLE_LOST)[0]!.level).toBe(40);
    expect(serve.output + worker.output).not.toMatch(/Unhandled|uncaught/i);
  }, 60_000);

  it('survives a reset while idle, twice in a row', async () => {
    for (let round = 0; round < 2; round++) {
      await callApi(url, 'GET', '/products', { key });
      await terminate(names.serve, names.worker);
      expect((await callApi(url, 'GET', '/products', { key })).status).toBe(200);
    }
    expect(serve.alive && worker.alive).toBe(true);
  });
});
