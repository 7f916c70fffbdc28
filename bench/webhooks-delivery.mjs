// Webhook delivery benchmark: signed deliveries per second to a local HTTPS receiver, and the
// latency from an event's commit (its created_at) to the receiver getting the first attempt.
//
//   npm run build -w packages/server && node bench/webhooks-delivery.mjs [--events 20000] [--latency-events 1000]
//   STOREFRONT_TEST_DATABASE_URL=postgres://… node bench/webhooks-delivery.mjs --db postgres
//
// The receiver runs in a child process (this same file with --receiver), as a merchant's server
// would run elsewhere; it checks every signature. Throughput: a backlog of events committed with no
// worker running, then one worker started and timed until the last delivery. Latency: events created
// one by one through the real API (POST /checkouts) at a steady rate, with the worker inline.
import { Buffer } from 'node:buffer';
import { fork } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { withPgClient } from './lib/database.mjs';
import { importServerModule } from './lib/paths.mjs';
import { latencySummary } from './lib/percentile.mjs';
import { nextMessage } from './lib/child-process.mjs';

const { values: opts } = parseArgs({
  options: {
    receiver: { type: 'boolean', default: false },
    db: { type: 'string', default: 'sqlite' },
    events: { type: 'string', default: '20000' },
    'latency-events': { type: 'string', default: '1000' },
    'latency-rate': { type: 'string', default: '100' },
    concurrency: { type: 'string', default: '128' },
  },
});

if (opts.receiver) await runReceiver();
else await runBench();

// ---------------------------------------------------------------- receiver (child process)

async function runReceiver() {
  const secret = process.env.BENCH_WEBHOOK_SECRET;
  const { key, cert } = JSON.parse(process.env.BENCH_TLS);
  const firstSeen = new Map(); // event id → ms when first received
  let requests = 0;
  let badSignatures = 0;
  const server = createServer({ key, cert, keepAliveTimeout: 60_000 }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const [t, v1] = String(req.headers['service-signature'])
        .split(',')
        .map((p) => p.slice(p.indexOf('=') + 1));
      const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
      if (expected !== v1) badSignatures++;
      requests++;
      const id = String(req.headers['service-event-id']);
      if (!firstSeen.has(id)) firstSeen.set(id, at);
      res.writeHead(200).end();
    });
  });
  process.on('message', (msg) => {
    if (msg === 'stats') {
      process.send({ requests, badSignatures, distinct: firstSeen.size, cpu: process.cpuUsage() });
    } else if (msg === 'firstSeen') {
      process.send({ firstSeen: [...firstSeen] });
    }
  });
  server.listen(8443, process.env.BENCH_HOST, () => process.send({ ready: true }));
}

// ---------------------------------------------------------------- the bench (parent process)

async function runBench() {
  const selfsigned = (await import('selfsigned')).default;
  const { openDatabase } = await importServerModule('platform/db/database.js');
  const { migrateToLatest } = await importServerModule('platform/db/migrations/migrate.js');
  const { loadConfig } = await importServerModule('platform/config/config.js');
  const { buildApp } = await importServerModule('channels/server/app.js');
  const { createStore } = await importServerModule('flows/create-store.js');
  const { createApiKey } = await importServerModule('platform/api-keys/api-keys.js');
  const { recordEvent } = await importServerModule('platform/outbox/outbox.js');
  const { startDeliveryWorker } = await importServerModule('domain/webhooks/delivery/worker.js');

  const host = `127.${rand()}.${rand()}.${rand()}`;
  const pems = selfsigned.generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    days: 1,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: host }] }],
  });

  const dir = mkdtempSync(join(tmpdir(), 'storefront-webhook-bench-'));
  let databaseUrl = `sqlite:${join(dir, 'bench.sqlite')}`;
  let openOptions = {};
  let dropSchema = async () => {};
  if (opts.db === 'postgres') {
    databaseUrl = process.env.STOREFRONT_TEST_DATABASE_URL;
    if (!databaseUrl) throw new Error('--db postgres needs STOREFRONT_TEST_DATABASE_URL');
    const schema = `bench_wh_${Date.now().toString(36)}`;
    await withPgClient(databaseUrl, (c) => c.query(`create schema ${schema}`));
    openOptions = { searchPath: schema };
    dropSchema = () => withPgClient(databaseUrl, (c) => c.query(`drop schema ${schema} cascade`));
  }
  const db = openDatabase(databaseUrl, openOptions);
  await migrateToLatest(db.kysely);
  const config = {
    ...loadConfig({
      DATABASE_URL: databaseUrl,
      STOREFRONT_SECRET: 'bench-secret-bench-secret-bench-secret-0000',
    }),
    rateLimitPerSecond: 1_000_000,
    webhookAllowedHosts: new Set([host]),
  };
  const app = await buildApp({ config, db: db.kysely, logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const api = `http://127.0.0.1:${app.server.address().port}/api/public/v1`;

  const store = await createStore(db.kysely, { name: 'Bench store' });
  const { key } = await createApiKey(db.kysely, {
    storeId: store.id,
    mode: 'test',
    scopes: ['webhooks:manage', 'checkouts:write'],
  });
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const created = await globalThis
    .fetch(`${api}/webhooks`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ url: `https://${host}:8443/hooks`, events: ['checkout.created'] }),
    })
    .then((r) => r.json());

  const receiver = fork(new URL(import.meta.url).pathname, ['--receiver'], {
    env: {
      ...process.env,
      BENCH_HOST: host,
      BENCH_WEBHOOK_SECRET: created.secret,
      BENCH_TLS: JSON.stringify({ key: pems.private, cert: pems.cert }),
    },
  });
  await nextMessage(receiver);
  const ask = async (what) => {
    receiver.send(what);
    return nextMessage(receiver);
  };
  const log = { debug() {}, info() {}, warn: console.warn, error: console.error };
  const workerOptions = {
    db: db.kysely,
    config,
    log,
    tls: { ca: pems.cert },
    concurrency: Number(opts.concurrency),
  };

  try {
    // Throughput: a backlog committed while no worker runs, then one worker drains it.
    const total = Number(opts.events);
    for (let done = 0; done < total; done += 1000) {
      await db.kysely.transaction().execute(async (trx) => {
        for (let i = done; i < Math.min(total, done + 1000); i++) {
          await recordEvent(trx, {
            storeId: store.id,
            type: 'checkout.created',
            livemode: false,
            object: { n: i },
          });
        }
      });
    }
    const receiverCpuBefore = (await ask('stats')).cpu;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let worker = startDeliveryWorker(workerOptions);
    let stats;
    do {
      await sleep(100);
      stats = await ask('stats');
    } while (stats.distinct < total);
    const seconds = (performance.now() - started) / 1000;
    // CPU per delivery, independent of how busy the machine is: the worker and the receiver each.
    const cpuMicros = (u, before) => u.user + u.system - before.user - before.system;
    const workerCpuUs = cpuMicros(process.cpuUsage(), cpuBefore) / total;
    const receiverCpuUs = cpuMicros(stats.cpu, receiverCpuBefore) / total;
    await worker.stop();

    // Latency: events through the API at a steady rate; the API's write hook wakes the worker.
    worker = startDeliveryWorker(workerOptions);
    const count = Number(opts['latency-events']);
    const gapMs = 1000 / Number(opts['latency-rate']);
    const createdAt = new Map();
    const t0 = performance.now();
    const pending = [];
    for (let i = 0; i < count; i++) {
      await sleep(Math.max(0, t0 + i * gapMs - performance.now()));
      pending.push(
        globalThis
          .fetch(`${api}/checkouts`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify({ name: `c${i}` }),
          })
          .then((r) => r.json()),
      );
    }
    const checkouts = new Set((await Promise.all(pending)).map((c) => c.id));
    let seen;
    do {
      await sleep(100);
      seen = await ask('stats');
    } while (seen.distinct < total + count);
    await worker.stop();
    const events = await db.kysely.selectFrom('events').select(['id', 'payload']).execute();
    for (const e of events) {
      const payload = JSON.parse(e.payload);
      if (checkouts.has(payload.data.object.id)) createdAt.set(e.id, Date.parse(payload.created_at));
    }
    const { firstSeen } = await ask('firstSeen');
    const latencies = firstSeen
      .filter(([id]) => createdAt.has(id))
      .map(([id, at]) => at - createdAt.get(id))
      .sort((a, b) => a - b);
    const final = await ask('stats');

    console.log(
      JSON.stringify(
        {
          database: opts.db,
          throughput: {
            deliveries: total,
            seconds: round(seconds),
            deliveries_per_second: Math.round(total / seconds),
            worker_cpu_us_per_delivery: Math.round(workerCpuUs),
            receiver_cpu_us_per_delivery: Math.round(receiverCpuUs),
            load_average: os.loadavg().map(round),
          },
          latency_ms: {
            events: latencies.length,
            rate_per_second: Number(opts['latency-rate']),
            ...latencySummary(latencies),
          },
          receiver: { requests: final.requests, bad_signatures: final.badSignatures },
        },
        null,
        2,
      ),
    );
  } finally {
    receiver.kill();
    await app.close();
    await db.close();
    await dropSchema();
    rmSync(dir, { recursive: true, force: true });
  }
}

function rand() {
  return 1 + Math.floor(Math.random() * 254);
}
function round(n) {
  return Math.round(n * 100) / 100;
}
