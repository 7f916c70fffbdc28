import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restartDelayMs } from '../../src/channels/cluster/supervisor.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { startHttpsReceiver } from '../support/https-receiver.js';
import type { HttpsReceiver } from '../support/https-receiver.js';
import { ServiceProcess } from '../support/service-process.js';
import { describeEachDatabase } from '../support/test-api.js';
import { DEMO_STORE_NAME } from '../../src/flows/demo-store.js';

const RATE_LIMIT = 5;

type LogLine = Record<string, unknown> & { pid: number };

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * One request on a connection of its own (no keep-alive): node:cluster hands out connections, not
 * requests, so this is what spreads requests over the HTTP processes.
 */
function onNewConnection(
  url: string,
  options: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise<Answer>((resolve, reject) => {
    const req = request(url, {
      method: options.method ?? 'GET',
      agent: false,
      headers: {
        ...(options.key && { authorization: `Bearer ${options.key}` }),
        ...(payload && { 'content-type': 'application/json' }),
        ...options.headers,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: String(res.headers['content-type']).includes('json') ? JSON.parse(text) : text || null,
        }),
      );
    });
    req.on('error', reject);
    req.end(payload);
  });
}

describeEachDatabase('serve with STOREFRONT_PROCESSES=2', (api) => {
  let receiver: HttpsReceiver;
  let serve: ServiceProcess;
  let url: string;
  let demo: { key: string; storeId: string };
  /** The HTTP processes alive now. */
  let httpPids: number[];

  const lines = (message: string) => serve.logLines(message) as LogLine[];
  const listening = () =>
    serve.output
      .split('\n')
      .filter((line) => line.includes('"msg":"Server listening at'))
      .map((line) => (JSON.parse(line) as LogLine).pid);

  /** The pid of the HTTP process that served each response, from its access log line. */
  function servedBy(responses: Answer[]): Promise<number[]> {
    const ids = responses.map((res) => String(res.headers['request-id']));
    return eventually(async () => {
      const access = lines('request').filter((line) => ids.includes(String(line.reqId)));
      return access.length === ids.length && ids.map((id) => access.find((l) => l.reqId === id)!.pid);
    });
  }

  const healthChecks = (count: number) =>
    Promise.all(Array.from({ length: count }, () => onNewConnection(`${url}/healthz`)));

  beforeAll(async () => {
    receiver = await startHttpsReceiver({ port: 8443 });
    const caFile = join(mkdtempSync(join(tmpdir(), 'storefront-ca-')), 'receiver.pem');
    writeFileSync(caFile, receiver.ca);
    serve = new ServiceProcess('serve', `processes_${api.dialect}`, {
      DATABASE_URL: api.database.url,
      ...api.database.env,
      STOREFRONT_PROCESSES: '2',
      STOREFRONT_RATE_LIMIT: String(RATE_LIMIT),
      STOREFRONT_WEBHOOK_ALLOWED_HOSTS: receiver.host,
      NODE_EXTRA_CA_CERTS: caFile,
    });
    const [, port] = await serve.waitFor(/"port":(\d+),"msg":"serving with several HTTP processes"/, 60_000);
    url = `http://127.0.0.1:${port}`;
    httpPids = await eventually(async () => listening().length === 2 && listening(), 60_000);
    // The primary makes the Demo store once an HTTP process listens: wait for its key to be printed.
    const [key] = await serve.waitFor(/sk_test_[0-9A-Za-z]{40}/, 60_000);
    const store = await api.db.selectFrom('stores').select('id').executeTakeFirstOrThrow();
    demo = { key: key!, storeId: store.id };
  }, 90_000);

  afterAll(async () => {
    await serve?.kill('SIGKILL');
    await receiver?.close();
  });

  it('migrates and makes the Demo store once, prints its key once, and both HTTP processes answer', async () => {
    expect(serve.output.match(/Created the Demo store/g)).toHaveLength(1);
    expect(await api.db.selectFrom('stores').select('name').execute()).toEqual([{ name: DEMO_STORE_NAME }]);
    expect(new Set(httpPids).size).toBe(2);
    expect(httpPids).not.toContain(serve.child.pid);

    const responses = await healthChecks(6);
    expect(responses.map((res) => res.status)).toEqual(Array(6).fill(200));
    expect(new Set(await servedBy(responses))).toEqual(new Set(httpPids));

    const res = await onNewConnection(`${url}/api/public/v1/checkouts`, { key: demo.key });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(1);
  });

  it("holds a key's limit across the processes: the 5th request of a second passes, the 6th gets 429", async () => {
    // A window opens at a key's first request; a burst straddling two windows is retried with a new key.
    for (let attempt = 1; ; attempt++) {
      const key = await api.createKey(demo.storeId);
      const burst = await Promise.all(
        Array.from({ length: RATE_LIMIT + 3 }, () =>
          onNewConnection(`${url}/api/public/v1/checkouts`, { key }),
        ),
      );
      const passed = burst.filter((res) => res.status === 200);
      const remaining = passed.map((res) => Number(res.headers['ratelimit-remaining']));
      if (new Set(remaining).size !== remaining.length && attempt < 5) continue; // two windows
      expect(new Set(await servedBy(burst))).toEqual(new Set(httpPids));
      expect(remaining.sort()).toEqual([0, 1, 2, 3, 4]);
      const refused = burst.filter((res) => res.status !== 200);
      expect(refused).toHaveLength(3);
      for (const res of refused) {
        expect(res.status).toBe(429);
        expect(res.body.error.code).toBe('rate_limited');
        expect(res.headers['ratelimit-remaining']).toBe('0');
      }
      return;
    }
  });

  it('takes concurrent writes on both processes without a failure, and delivers each event once', async () => {
    const hook = await onNewConnection(`${url}/api/public/v1/webhooks`, {
      method: 'POST',
      key: await api.createKey(demo.storeId),
      body: { url: `${receiver.url}/processes`, events: ['product.created'] },
    });
    expect(hook.status).toBe(201);

    // The Demo store's demo product, made at start, has its event already: only the new ones count.
    const productEvents = () =>
      api.db
        .selectFrom('events')
        .select('id')
        .where('store_id', '=', demo.storeId)
        .where('type', '=', 'product.created')
        .execute();
    const before = await productEvents();

    // Every key writes at its limit: 40 creations at once, spread over both processes.
    const keys = await Promise.all(Array.from({ length: 8 }, () => api.createKey(demo.storeId)));
    const writes = await Promise.all(
      keys.flatMap((key, k) =>
        Array.from({ length: RATE_LIMIT }, (_, i) =>
          onNewConnection(`${url}/api/public/v1/products`, {
            method: 'POST',
            key,
            body: { nome: `Produto ${k}-${i}`, preco: 10 + i },
          }),
        ),
      ),
    );
    expect(writes.map((res) => res.status)).toEqual(Array(40).fill(201));
    expect(new Set(await servedBy(writes))).toEqual(new Set(httpPids));

    const known = new Set(before.map((event) => event.id));
    const events = (await productEvents()).filter((event) => !known.has(event.id));
    expect(events).toHaveLength(40);
    await receiver.waitForRequests(40, 30_000);
    await eventually(
      async () => (await api.db.selectFrom('webhook_jobs').select('id').execute()).length === 0,
      30_000,
    );
    const delivered = receiver.requests.map((req) => String(req.headers['service-event-id']));
    expect(delivered.sort()).toEqual(events.map((event) => event.id).sort());
  }, 90_000);

  it('one Idempotency-Key sent to both processes at once makes one product; the others replay it or are 409', async () => {
    // Keys of one store share its Idempotency-Keys; four keys keep the burst under each key's limit.
    const keys = await Promise.all(Array.from({ length: 4 }, () => api.createKey(demo.storeId)));
    const body = { nome: 'Uma vez entre processos', preco: 10 };
    const answers = await Promise.all(
      keys.flatMap((key) =>
        Array.from({ length: RATE_LIMIT - 1 }, () =>
          onNewConnection(`${url}/api/public/v1/products`, {
            method: 'POST',
            key,
            body,
            headers: { 'idempotency-key': 'across-processes' },
          }),
        ),
      ),
    );
    expect(new Set(await servedBy(answers))).toEqual(new Set(httpPids));
    const created = answers.filter((res) => res.status === 201);
    expect(created.length).toBeGreaterThan(0);
    expect(created.filter((res) => res.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
    expect(new Set(created.map((res) => res.body.id)).size).toBe(1);
    // 409 only for a request that met the first still running in its own process.
    for (const res of answers.filter((r) => r.status !== 201)) {
      expect([res.status, res.body.error.code]).toEqual([409, 'idempotency_conflict']);
    }
    const rows = await api.db
      .selectFrom('products')
      .select('id')
      .where('store_id', '=', demo.storeId)
      .where('nome', '=', body.nome)
      .execute();
    expect(rows).toEqual([{ id: created[0]!.body.id }]);
  });

  it('replaces an HTTP process that dies', async () => {
    const [killed, survivor] = httpPids as [number, number];
    process.kill(killed, 'SIGKILL');
    await eventually(async () =>
      lines('HTTP process exited; starting another').some((line) => line.worker_pid === killed),
    );
    const replacement = await eventually(
      async () => listening().find((pid) => !httpPids.includes(pid)),
      60_000,
    );
    httpPids = [survivor, replacement];
    expect(new Set(await servedBy(await healthChecks(6)))).toEqual(new Set(httpPids));
  }, 90_000);

  it('stops the primary and every HTTP process on SIGTERM, after the request in flight is answered and the page views are written', async () => {
    // A creation whose body is still to come: `Expect: 100-continue` shows the server has begun it.
    const body = JSON.stringify({ nome: 'Em voo', preco: 12 });
    const inFlight = request(`${url}/api/public/v1/products`, {
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${demo.key}`,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        expect: '100-continue',
      },
    });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      inFlight.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      inFlight.on('error', reject);
    });
    await new Promise((resolve) => inFlight.once('continue', resolve));
    // Views of the demo product's page on both processes, each counted in its process's memory.
    const pagePath = new URL(/Buy its demo product \(test mode\): (\S+)/.exec(serve.output)![1]!).pathname;
    const views = await Promise.all(Array.from({ length: 6 }, () => onNewConnection(`${url}${pagePath}`)));
    expect(views.map((view) => view.status)).toEqual(Array(6).fill(200));
    expect(new Set(await servedBy(views))).toEqual(new Set(httpPids));

    serve.child.kill('SIGTERM');
    const shutDown = (pid: number) => lines('shutting down').some((line) => line.pid === pid);
    await eventually(async () => httpPids.every(shutDown));
    inFlight.end(body);
    const res = await answered;
    expect(res.status).toBe(201);
    const product = JSON.parse(res.text);
    expect(
      await api.db.selectFrom('products').select('nome').where('id', '=', product.id).executeTakeFirst(),
    ).toEqual({ nome: 'Em voo' });

    await serve.exited;
    expect(serve.exit).toEqual({ code: 0, signal: null });
    // Each process wrote its own views (at the latest as it stopped), and they added up.
    const counted = await api.db
      .selectFrom('analytics_daily')
      .select('page_views')
      .where('store_id', '=', demo.storeId)
      .where('product_id', '=', '*')
      .execute();
    expect(counted.reduce((sum, row) => sum + Number(row.page_views), 0)).toBe(6);
    for (const pid of [...httpPids, serve.child.pid!]) {
      expect(shutDown(pid)).toBe(true);
      expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    }
  });
});

describe('serve with STOREFRONT_PROCESSES=2 on a taken port', () => {
  it('exits 1 with a message instead of restarting processes that cannot listen', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const databaseUrl = `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-processes-')), 'db.sqlite')}`;
      const serve = new ServiceProcess('serve', 'processes_taken_port', {
        DATABASE_URL: databaseUrl,
        STOREFRONT_PROCESSES: '2',
        PORT: String(port),
      });
      await serve.exited;
      expect(serve.exit).toEqual({ code: 1, signal: null });
      expect(serve.output).toContain(`PORT=${port}: the port is already in use`);
      expect(serve.logLines('the HTTP processes could not start')).toHaveLength(1);
      expect(serve.logLines('HTTP process exited; starting another')).toHaveLength(0);
      // No Demo store whose key nobody saw: the next start makes it and prints it.
      expect(serve.output).not.toContain('Created the Demo store');
      const db = openDatabase(databaseUrl);
      expect(await db.kysely.selectFrom('stores').select('id').execute()).toEqual([]);
      await db.close();
    } finally {
      taken.close();
    }
  }, 60_000);
});

describe('restarting HTTP processes that keep dying', () => {
  it('restarts at once after a healthy run, then waits 100 ms, doubling up to 30 s', () => {
    expect([0, 1, 2, 3, 4].map(restartDelayMs)).toEqual([0, 100, 200, 400, 800]);
    expect(restartDelayMs(9)).toBe(25_600);
    expect(restartDelayMs(10)).toBe(30_000);
    expect(restartDelayMs(100)).toBe(30_000);
  });
});
