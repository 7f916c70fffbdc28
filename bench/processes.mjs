// `STOREFRONT_PROCESSES`: one `serve` process against N on the same box, with the same load
// generator, in alternating rounds; and how soon a write's webhook leaves when the delivery worker
// runs in another process (bench/README.md, "Several processes"). Purchases (`--only
// purchase-api,purchase-page`) are whole purchases made by a keep-alive undici pool, as
// bench/purchase.mjs makes them; with STOREFRONT_TEST_REDIS_URL set the server shares its limits in Redis.
//
//   npm run build -w packages/server && node bench/processes.mjs [--processes 2] [--db sqlite|postgres]
//        [--server <other build>/packages/server/bin/storefront.js]
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { prepareDatabase } from './lib/database.mjs';
import { requestJson } from './lib/http.mjs';
import { runLoad } from './lib/load.mjs';
import { serverBin } from './lib/paths.mjs';
import { percentile } from './lib/percentile.mjs';
import { processTicks } from './lib/proc-stats.mjs';
import {
  TICKS_PER_SECOND,
  openBacklog,
  pgBackendPids,
  postgresPids,
  processesNamed,
  samplePgWaits,
  waitUntilDrained,
  watchPids,
} from './lib/purchase-cost.mjs';
import {
  PURCHASE_KINDS,
  httpPool,
  purchaseContext,
  purchaseOnce,
  runPurchases,
} from './lib/purchase-steps.mjs';
import { productPagePath, purchaseStores } from './lib/purchase-stores.mjs';
import { SCENARIOS } from './lib/scenarios.mjs';
import { startStorefront } from './lib/servers.mjs';
import { textTable } from './lib/table.mjs';

const { values } = parseArgs({
  options: {
    processes: { type: 'string', default: String(Math.max(2, availableParallelism())) },
    db: { type: 'string', default: 'sqlite' },
    only: { type: 'string', default: 'product-get,product-create' },
    rounds: { type: 'string', default: '2' },
    warmup: { type: 'string', default: '2' },
    duration: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    'purchase-concurrency': { type: 'string', default: '16' },
    stores: { type: 'string', default: '1' },
    'delivery-events': { type: 'string', default: '60' },
    // Another build's bin/storefront.js, to compare two builds run after run. It must know this
    // checkout's migrations (the bench migrates the database); otherwise run that build's own bench.
    server: { type: 'string' },
  },
});
const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL || null;
const redisUrl = process.env.STOREFRONT_TEST_REDIS_URL || null;
/** `purchase-<kind>` in --only: whole purchases of that kind (bench/lib/purchase-steps.mjs). */
const PURCHASE_PREFIX = 'purchase-';
const purchaseKinds = values.only
  .split(',')
  .filter((name) => name.startsWith(PURCHASE_PREFIX))
  .map((name) => name.slice(PURCHASE_PREFIX.length));
for (const kind of purchaseKinds) if (!PURCHASE_KINDS[kind]) throw new Error(`unknown purchase kind ${kind}`);
const processes = Number(values.processes);
const options = {
  connections: Number(values.connections),
  pipelining: 1,
  rateLimit: 1_000_000, // on for every request, never refusing one
  logLevel: 'info',
  serverBin: values.server ?? null,
};
const log = (message) => console.error(`bench: ${message}`);
const load1m = () => Math.round(loadavg()[0] * 100) / 100;

/** The pids of `pid` and its children (the HTTP processes of a primary), from /proc. */
function processTree(pid) {
  const children = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [pid, ...children];
}

/** Names the server's PostgreSQL connections (PGAPPNAME), to find their backends. */
const pgAppName = `storefront-bench-${randomBytes(4).toString('hex')}`;

async function startServer(database, count, extraEnv = {}) {
  const serverEnv = {
    ...database.serverEnv,
    STOREFRONT_PROCESSES: String(count),
    STOREFRONT_ORDER_RATE_LIMIT: '1000000', // per minute, per (IP, store): orders and "Simular pagamento"
    PGAPPNAME: pgAppName,
    ...(redisUrl && { REDIS_URL: redisUrl }),
    ...extraEnv,
  };
  const server = await startStorefront({ database: { ...database, serverEnv }, options, profileDir: null });
  // /readyz answered from one process; give the others time to listen before any load.
  for (let i = 0; i < 100 && processTree(server.pid).length < (count > 1 ? count + 1 : 1); i++)
    await sleep(50);
  return server;
}

async function throughput(database) {
  const scenarios = SCENARIOS.filter((s) => values.only.split(',').includes(s.name));
  if (scenarios.length === 0) return [];
  const rows = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const count of [1, processes]) {
      const server = await startServer(database, count);
      try {
        const ctx = {
          db: database.kind,
          origin: server.url,
          headers: { authorization: `Bearer ${database.key}` },
          productIds: database.productIds,
          checkoutId: database.checkoutId,
          runId: `procs-${round}-${count}-${Date.now()}`,
          counter: 0,
        };
        for (const scenario of scenarios) {
          if (scenario.prepare) await scenario.prepare(ctx);
          const next = scenario.make(ctx);
          const loadOptions = { origin: server.url, next, ...options };
          await runLoad({ ...loadOptions, durationSeconds: Number(values.warmup) });
          const pids = processTree(server.pid);
          const ticks = () => pids.reduce((sum, pid) => sum + processTicks(pid), 0);
          const [ticksBefore, primaryBefore, loadBefore] = [ticks(), processTicks(server.pid), load1m()];
          const result = await runLoad({ ...loadOptions, durationSeconds: Number(values.duration) });
          const cpuSeconds = (ticks() - ticksBefore) / 100;
          const primarySeconds = count > 1 ? (processTicks(server.pid) - primaryBefore) / 100 : 0;
          rows.push({
            round,
            scenario: scenario.name,
            processes: count,
            rps: result.rps,
            p99: result.p99,
            failed: result.errors + result.timeouts + result.non2xx,
            cpuUsPerRequest: Math.round((cpuSeconds * 1e6) / Math.max(1, result.total)),
            primaryUsPerRequest: Math.round((primarySeconds * 1e6) / Math.max(1, result.total)),
            serverCores: Math.round((cpuSeconds / result.durationSeconds) * 100) / 100,
            load1m: `${loadBefore} → ${load1m()}`,
          });
          log(`round ${round}, ${count} process(es), ${scenario.name}: ${result.rps} req/s`);
        }
      } finally {
        await server.stop();
      }
    }
  }
  return rows;
}

/**
 * Purchases a second with 1 process and with N, alternating: `--purchase-concurrency` purchases in
 * flight from one keep-alive pool, a warm-up, then `--duration` seconds measured, and the worker's
 * backlog drained before the CPU is read. CPU per purchase of the server's tree (the primary's share
 * apart), of the server's PostgreSQL backends, of every postgres process, and of redis-server; what
 * the busy backends wait on. With `--stores N` the purchases go round the stores of N (each its own
 * product and daily totals) instead of all to one.
 */
async function purchaseThroughput(database) {
  const rows = [];
  const concurrency = Number(values['purchase-concurrency']);
  const stores = await purchaseStores(database, Number(values.stores));
  const backlog = await openBacklog(database);
  try {
    for (let round = 1; round <= Number(values.rounds); round++) {
      for (const count of [1, processes]) {
        const server = await startServer(database, count);
        const pool = httpPool(server.url, concurrency);
        try {
          const contexts = [];
          for (const { handle, key } of stores) {
            const pagePath = await productPagePath(server, { handle, key });
            contexts.push(purchaseContext({ origin: server.url, pagePath, key }));
          }
          for (const kind of purchaseKinds) {
            let next = 0;
            const once = () => purchaseOnce(pool, kind, contexts[next++ % contexts.length]);
            const warmup = await runPurchases({
              once,
              count: Infinity,
              concurrency,
              durationMs: Number(values.warmup) * 1000,
            });
            if (warmup.errors.length > 0) throw new Error(warmup.errors[0]);
            const pids = processTree(server.pid);
            await waitUntilDrained({ backlog, pids });
            const serverTicks = await watchPids(() => pids);
            const primaryTicks = await watchPids(() => [server.pid]);
            const backends =
              pgUrl && database.kind === 'postgres'
                ? await watchPids(() => pgBackendPids(pgUrl, pgAppName))
                : null;
            const allPostgres = await watchPids(postgresPids);
            const redis = await watchPids(() => processesNamed('redis-server'));
            const waits = backends ? await samplePgWaits(pgUrl, pgAppName) : null;
            const loadBefore = load1m();
            const run = await runPurchases({
              once,
              count: Infinity,
              concurrency,
              durationMs: Number(values.duration) * 1000,
            });
            const pgActive = waits && (await waits());
            await waitUntilDrained({ backlog, pids });
            const n = Math.max(1, run.purchases.length);
            const us = (ticks) => Math.round(((ticks / TICKS_PER_SECOND) * 1e6) / n);
            const cpuTicks = await serverTicks();
            const totals = run.purchases
              .map((steps) => steps.reduce((sum, s) => sum + s.ms, 0))
              .sort((a, b) => a - b);
            rows.push({
              round,
              scenario: `${PURCHASE_PREFIX}${kind}`,
              processes: count,
              purchasesPerSecond: Math.round((run.purchases.length / run.seconds) * 10) / 10,
              p50Ms: Math.round(percentile(totals, 50)),
              p99Ms: Math.round(percentile(totals, 99)),
              failed: run.errors.length,
              serverUs: us(cpuTicks),
              primaryUs: count > 1 ? us(await primaryTicks()) : 0,
              pgBackendsUs: backends ? us(await backends()) : null,
              pgAllUs: us(await allPostgres()),
              redisUs: us(await redis()),
              serverCores: Math.round((cpuTicks / TICKS_PER_SECOND / run.seconds) * 100) / 100,
              load1m: `${loadBefore} → ${load1m()}`,
              pgActive,
            });
            if (run.errors.length > 0) log(`${kind}: ${run.errors[0]}`);
            log(
              `round ${round}, ${count} process(es), purchase ${kind}: ${rows.at(-1).purchasesPerSecond}/s`,
            );
          }
        } finally {
          await pool.close();
          await server.stop();
        }
      }
    }
  } finally {
    await backlog.close();
  }
  return rows;
}

/** A local HTTPS receiver on 127.x.y.z:8443 (the webhook port rule), calling `onRequest` per delivery. */
async function startReceiver(onRequest) {
  const selfsigned = (await import('selfsigned')).default;
  const octet = () => 1 + Math.floor(Math.random() * 254);
  const host = `127.${octet()}.${octet()}.${octet()}`;
  const pems = selfsigned.generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    days: 1,
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: host }] }],
  });
  const caFile = join(mkdtempSync(join(tmpdir(), 'storefront-bench-ca-')), 'receiver.pem');
  writeFileSync(caFile, pems.cert);
  const server = createServer({ key: pems.private, cert: pems.cert }, (req, res) => {
    req.resume().on('end', () => {
      onRequest();
      res.end('ok');
    });
  });
  await new Promise((resolve) => server.listen(8443, host, resolve));
  return { url: `https://${host}:8443`, host, caFile, close: () => server.close() };
}

/**
 * Milliseconds from a write's response to its webhook reaching the receiver, writes one at a time
 * with a random pause between them (so they do not line up with the worker's 250 ms poll).
 */
async function deliveryLatency(database) {
  let arrived = () => {};
  const receiver = await startReceiver(() => arrived());
  const env = {
    STOREFRONT_SECRET: randomBytes(32).toString('base64url'), // the same for serve and a separate worker
    STOREFRONT_WEBHOOK_ALLOWED_HOSTS: receiver.host,
    NODE_EXTRA_CA_CERTS: receiver.caFile,
  };
  const setups = [
    { name: '1 process, inline worker (in-process nudge)', count: 1, env: {} },
    { name: `${processes} processes, worker in the primary (IPC nudge)`, count: processes, env: {} },
    { name: '1 process + `storefront worker` (polling only)', count: 1, env: { STOREFRONT_WORKER: 'off' } },
  ];
  const rows = [];
  try {
    for (const setup of setups) {
      const server = await startServer(database, setup.count, { ...env, ...setup.env });
      const worker =
        setup.env.STOREFRONT_WORKER === 'off'
          ? spawn(process.execPath, [serverBin, 'worker'], {
              env: { ...process.env, ...database.serverEnv, ...env, DATABASE_URL: database.databaseUrl },
              stdio: 'ignore',
            })
          : null;
      try {
        const headers = { authorization: `Bearer ${database.key}`, 'content-type': 'application/json' };
        const endpoint = await requestJson(`${server.api}/webhooks`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ url: `${receiver.url}/hook`, events: ['product.created'] }),
        });
        const latencies = [];
        for (let i = 0; i < Number(values['delivery-events']); i++) {
          const delivered = new Promise((resolve) => (arrived = resolve));
          await requestJson(`${server.api}/products`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ nome: `Latência ${i}`, preco: 10 }),
          });
          const sentAt = performance.now();
          await delivered;
          if (i > 0) latencies.push(performance.now() - sentAt); // the first also opens the TLS connection
          await sleep(Math.random() * 100);
        }
        await requestJson(`${server.api}/webhooks/${endpoint.id}`, {
          method: 'DELETE',
          headers: { authorization: headers.authorization },
        });
        latencies.sort((a, b) => a - b);
        rows.push({
          setup: setup.name,
          events: latencies.length,
          p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
          p90Ms: Math.round(percentile(latencies, 90) * 10) / 10,
          maxMs: Math.round(latencies.at(-1) * 10) / 10,
        });
        log(`delivery: ${setup.name}: p50 ${rows.at(-1).p50Ms} ms`);
      } finally {
        worker?.kill('SIGTERM');
        await server.stop();
      }
    }
  } finally {
    receiver.close();
  }
  return rows;
}

const median = (list) => list.sort((a, b) => a - b)[Math.floor((list.length - 1) / 2)];

log(
  `${values.db}${redisUrl ? ' + Redis' : ''}: 1 process against ${processes}, ${availableParallelism()} cores, ` +
    (purchaseKinds.length > 0 ? `purchases over ${values.stores} store(s), ` : '') +
    `load average ${load1m()}`,
);
const database = await prepareDatabase({ kind: values.db, pgUrl, seedCount: 5_000 });

/** N processes against 1, medians of the rounds: the throughput ratio and the CPU per unit. */
function summary(rows, rate, cpu, unit) {
  for (const scenario of new Set(rows.map((r) => r.scenario))) {
    const of = (count, field) =>
      median(rows.filter((r) => r.scenario === scenario && r.processes === count).map((r) => r[field]));
    console.log(
      `${scenario}: ${processes} processes / 1 = ${Math.round((of(processes, rate) / of(1, rate)) * 100) / 100}x ${unit}/s ` +
        `(medians of the rounds), CPU µs/${unit} ${of(1, cpu)} → ${of(processes, cpu)}`,
    );
  }
}

try {
  const rounds = Number(values.rounds) > 0;
  const rows = rounds ? await throughput(database) : [];
  if (rows.length > 0) console.log(textTable(rows));
  summary(rows, 'rps', 'cpuUsPerRequest', 'req');
  const purchaseRows = rounds && purchaseKinds.length > 0 ? await purchaseThroughput(database) : [];
  if (purchaseRows.length > 0) console.log(`\n${textTable(purchaseRows)}`);
  summary(purchaseRows, 'purchasesPerSecond', 'serverUs', 'purchase');
  if (Number(values['delivery-events']) > 0) console.log(`\n${textTable(await deliveryLatency(database))}`);
} finally {
  await database.cleanup();
}
