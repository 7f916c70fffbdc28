// Dependency outages as an API client sees them: one `serve` process talking to PostgreSQL (and
// Redis, when given) through a TCP proxy that cuts, stalls and restores the connections.
//
//   npm run build -w packages/server
//   STOREFRONT_TEST_DATABASE_URL=postgres://… [STOREFRONT_TEST_REDIS_URL=redis://…] node bench/outage.mjs [--rounds 3]
//
// For each PostgreSQL outage (cut: connections reset and refused, as in a restart; stall: connections
// open but silent, as in a partition) it reports the time from the outage to the first 503 a client
// gets (a request sent right at the outage), how long /readyz takes to say 503, and, once the
// proxy restores traffic, the time to the first 200 (a client polling every 50 ms). For Redis it
// reports the latency of requests while Redis is stalled and how long after the restore the rate
// limiter is back on Redis. Medians over the rounds; the ms figures are wall-clock on this machine.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startNodeProcess } from './lib/child-process.mjs';
import { prepareDatabase } from './lib/database.mjs';
import { freePort } from './lib/free-port.mjs';
import { importServerDependency, serverBin } from './lib/paths.mjs';
import { percentile } from './lib/percentile.mjs';
import { startTcpProxy } from './lib/tcp-proxy.mjs';

const { values: opts } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Number(opts.rounds);
const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL;
const redisUrl = process.env.STOREFRONT_TEST_REDIS_URL || null;
if (!pgUrl) {
  console.error('bench/outage.mjs needs STOREFRONT_TEST_DATABASE_URL (PostgreSQL)');
  process.exit(2);
}

const database = await prepareDatabase({ kind: 'postgres', pgUrl, seedCount: 0 });
const pgTarget = new URL(pgUrl);
const pgProxy = await startTcpProxy({ host: pgTarget.hostname, port: Number(pgTarget.port || 5432) });
pgTarget.host = `${pgProxy.host}:${pgProxy.port}`;
const redisTarget = redisUrl ? new URL(redisUrl) : null;
const redisProxy = redisTarget
  ? await startTcpProxy({ host: redisTarget.hostname, port: Number(redisTarget.port || 6379) })
  : null;
if (redisTarget) redisTarget.host = `${redisProxy.host}:${redisProxy.port}`;

const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const logFile = join(mkdtempSync(join(tmpdir(), 'storefront-outage-')), 'serve.log');
const server = await startNodeProcess({
  script: serverBin,
  args: ['serve'],
  env: {
    PATH: process.env.PATH,
    DATABASE_URL: pgTarget.href,
    ...database.serverEnv,
    ...(redisTarget && { REDIS_URL: redisTarget.href }),
    STOREFRONT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
    STOREFRONT_RATE_LIMIT: '1000000',
    PORT: String(port),
    LOG_LEVEL: 'warn',
  },
  logFile,
  readyUrl: `${base}/healthz`,
});

/** Status and elapsed ms of one request; a request that never answers counts as 60 s. */
async function timed(path, options = {}) {
  const started = performance.now();
  try {
    const res = await globalThis.fetch(`${base}${path}`, {
      ...options,
      headers: { authorization: `Bearer ${database.key}`, ...options.headers },
      signal: globalThis.AbortSignal.timeout(60_000),
    });
    await res.arrayBuffer();
    return { status: res.status, ms: performance.now() - started };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}

const LIST = '/api/public/v1/products';

/** Polls every 50 ms until `path` answers `status`; ms from the call. */
async function untilStatus(path, status) {
  const started = performance.now();
  for (;;) {
    if ((await timed(path)).status === status) return performance.now() - started;
    await sleep(50);
  }
}

async function pgOutage(kind) {
  // Warm the pool so the outage meets open connections, as it would in production.
  await Promise.all(Array.from({ length: 5 }, () => timed(LIST)));
  pgProxy[kind]();
  const [first, ready] = await Promise.all([timed(LIST), timed('/readyz')]);
  await sleep(1000);
  pgProxy.restore();
  const recoverMs = await untilStatus(LIST, 200);
  return {
    firstStatus: first.status,
    firstMs: first.ms,
    readyStatus: ready.status,
    readyMs: ready.ms,
    recoverMs,
  };
}

async function redisStall() {
  const redis = new (await importServerDependency('ioredis')).Redis(redisUrl);
  await timed(LIST);
  redisProxy.stall();
  const during = [];
  for (let i = 0; i < 20; i++) during.push(await timed(LIST));
  redisProxy.restore();
  // Back on Redis once an exhausted shared budget refuses again.
  const counter = `storefront:rl:${await keyId()}`;
  await redis.set(counter, 1_000_000_000, 'PX', 60_000);
  const backMs = await untilStatus(LIST, 429);
  await redis.del(counter);
  redis.disconnect();
  return {
    firstMs: during[0].ms,
    restP50Ms: median(during.slice(1).map((d) => d.ms)),
    statuses: [...new Set(during.map((d) => d.status))],
    backMs,
  };
}

/** The bench key's id: the rate limiter's counter is named after it. */
async function keyId() {
  const pg = await importServerDependency('pg');
  const client = new pg.Client({ connectionString: pgUrl, options: database.serverEnv.PGOPTIONS });
  await client.connect();
  const { rows } = await client.query('select id from api_keys limit 1');
  await client.end();
  return rows[0].id;
}

const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
const results = {};
try {
  for (const kind of ['cut', 'stall']) {
    const runs = [];
    for (let i = 0; i < rounds; i++) runs.push(await pgOutage(kind));
    results[`postgres_${kind}`] = {
      first_status: [...new Set(runs.map((r) => r.firstStatus))],
      first_503_ms: Math.round(median(runs.map((r) => r.firstMs))),
      readyz_status: [...new Set(runs.map((r) => r.readyStatus))],
      readyz_ms: Math.round(median(runs.map((r) => r.readyMs))),
      recover_ms: Math.round(median(runs.map((r) => r.recoverMs))),
    };
  }
  if (redisProxy) {
    const runs = [];
    for (let i = 0; i < rounds; i++) runs.push(await redisStall());
    results.redis_stall = {
      statuses: [...new Set(runs.flatMap((r) => r.statuses))],
      first_request_ms: Math.round(median(runs.map((r) => r.firstMs))),
      next_requests_p50_ms: Math.round(median(runs.map((r) => r.restP50Ms))),
      back_on_redis_ms: Math.round(median(runs.map((r) => r.backMs))),
    };
  }
  console.log(JSON.stringify({ rounds, results }, null, 2));
} finally {
  await server.stop();
  await pgProxy.close();
  await redisProxy?.close();
  await database.cleanup();
}
