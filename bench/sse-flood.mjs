// A flood of order-page live-status streams (`GET /p/o/<token>/events`) against one `storefront serve`:
// the attack of one client opening stream after stream on one order token (and then on many tokens),
// holding every stream the server grants. While it runs, the server's RSS and open descriptors
// (/proc/<pid>/fd) are sampled and `/healthz` is asked on a fresh connection every 100 ms. The same
// samples taken on the idle server just before are the baseline; the report gives both and the ratio.
//
//   npm run build -w packages/server && node bench/sse-flood.mjs [--attempts 20000] [--concurrency 500]
//   node bench/sse-flood.mjs --postgres postgres://postgres@127.0.0.1:5432/test
//   node bench/sse-flood.mjs --server /path/to/an/older/build/bin/storefront.js   (to compare builds)
//
// Defaults: 20,000 attempts per scenario, 500 in flight, SQLite, this repository's build.
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { startNodeProcess } from './lib/child-process.mjs';
import { placeFor } from './lib/database.mjs';
import { freePort } from './lib/free-port.mjs';
import { placePageOrder } from './lib/page-order.mjs';
import { serverBin, importServerModule as load } from './lib/paths.mjs';
import { latencySummary } from './lib/percentile.mjs';
import { processTicks, rssBytes, toMb } from './lib/proc-stats.mjs';

const { values } = parseArgs({
  options: {
    attempts: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '500' },
    postgres: { type: 'string' },
    server: { type: 'string' },
  },
});
const attempts = Number(values.attempts);
const concurrency = Number(values.concurrency);
const pgUrl = values.postgres ?? null;
const TOKENS_SCENARIO_B = 400;

const { openDatabase } = await load('platform/db/database.js');
const { migrateToLatest } = await load('platform/db/migrations/migrate.js');
const { ensureDemoStore } = await load('flows/demo-store.js');

const place = await placeFor(pgUrl ? 'postgres' : 'sqlite', pgUrl);
const db = openDatabase(place.databaseUrl, place.openOptions);
await migrateToLatest(db.kysely);
const demo = await ensureDemoStore(db.kysely);
await db.close();

const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const server = await startNodeProcess({
  script: values.server ?? serverBin,
  args: ['serve'],
  env: {
    PATH: process.env.PATH,
    DATABASE_URL: place.databaseUrl,
    STOREFRONT_SECRET: randomBytes(32).toString('base64url'),
    HOST: '127.0.0.1',
    PORT: String(port),
    STOREFRONT_ORDER_RATE_LIMIT: '100000',
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ...place.serverEnv,
  },
  logFile: join(place.dir, 'server.log'),
  readyUrl: `${origin}/readyz`,
});

const order = async () => (await placePageOrder(origin, demo.pagePath)).split('/').pop();

/** The server's open descriptors; null once it is gone (a crash under the flood is a result too). */
function descriptors() {
  try {
    return readdirSync(`/proc/${server.pid}/fd`).length;
  } catch {
    return null;
  }
}
const rss = () => {
  try {
    return rssBytes(server.pid);
  } catch {
    return null;
  }
};

/** GET /healthz on a new connection (the symptom was new connections being reset): ms, or null on failure. */
function health() {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = httpRequest(`${origin}/healthz`, { agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode === 200 ? performance.now() - started : null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
    req.end();
  });
}

/** Samples the server every 100 ms until `stop()`: RSS, descriptors, /healthz. */
function sample() {
  const rows = { rss: [], fds: [], health: [], healthFailures: 0 };
  let running = true;
  const loop = (async () => {
    while (running) {
      rows.rss.push(rss());
      rows.fds.push(descriptors());
      const ms = await health();
      if (ms === null) rows.healthFailures++;
      else rows.health.push(ms);
      await sleep(100);
    }
  })();
  return async () => {
    running = false;
    await loop;
    const health = latencySummary([...rows.health].sort((a, b) => a - b));
    return {
      peakRssMb: toMb(Math.max(...rows.rss)),
      peakFds: Math.max(...rows.fds),
      healthP50Ms: round(health.p50),
      healthP99Ms: round(health.p99),
      healthMaxMs: round(health.max),
      healthOver100Ms: rows.health.filter((ms) => ms > 100).length,
      healthFailures: rows.healthFailures,
      samples: rows.rss.length,
    };
  };
}

const round = (ms) => (ms === undefined ? null : Math.round(ms * 10) / 10);

/**
 * Opens `attempts` streams, `concurrency` at a time, on `tokens` in turn; a granted stream is held open
 * until the end (as the attacker would), a refused one is read and let go.
 */
async function flood(tokens) {
  const held = [];
  const outcome = { granted: 0, refused429: 0, otherStatus: 0, connectionErrors: 0 };
  let next = 0;
  const one = (token) =>
    new Promise((resolve) => {
      const req = httpRequest(`${origin}/p/o/${token}/events`, { agent: false }, (res) => {
        if (res.statusCode === 200) {
          outcome.granted++;
          held.push(req);
          res.on('data', () => {});
          return resolve();
        }
        if (res.statusCode === 429) outcome.refused429++;
        else outcome.otherStatus++;
        res.resume();
        res.on('close', resolve);
      });
      req.on('error', () => {
        outcome.connectionErrors++;
        resolve();
      });
      req.end();
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < attempts) {
        const i = next++;
        await one(tokens[i % tokens.length]);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    ...outcome,
    attemptsPerSecond: Math.round(attempts / seconds),
    release: () => held.forEach((r) => r.destroy()),
  };
}

async function scenario(name, tokens) {
  await sleep(500);
  const idle = sample();
  await sleep(2000);
  const baseline = await idle();
  const during = sample();
  const ticks = processTicks(server.pid);
  const { release, ...result } = await flood(tokens);
  // CPU ticks are 10 ms (USER_HZ 100): per attempt, in µs.
  const serverCpuUsPerAttempt = Math.round(((processTicks(server.pid) - ticks) * 10_000) / attempts);
  // Held streams still open: the state the server stays in while the attacker waits.
  await sleep(2000);
  const stats = await during();
  const fdsWhileHeld = descriptors();
  const serverAlive = fdsWhileHeld !== null;
  release();
  await sleep(1000);
  return {
    scenario: name,
    attempts,
    concurrency,
    ...result,
    serverCpuUsPerAttempt,
    fdsWhileHeld,
    serverAlive,
    idle: baseline,
    flood: stats,
    rssRatio: Math.round((stats.peakRssMb / baseline.peakRssMb) * 100) / 100,
    fdRatio: Math.round((stats.peakFds / baseline.peakFds) * 100) / 100,
    healthP99Ratio: Math.round((stats.healthP99Ms / baseline.healthP99Ms) * 100) / 100,
  };
}

const results = [];
try {
  results.push(await scenario('one token', [await order()]));
  const tokens = [];
  for (let i = 0; i < TOKENS_SCENARIO_B; i++) tokens.push(await order());
  results.push(await scenario(`${TOKENS_SCENARIO_B} tokens`, tokens));
} finally {
  await server.stop();
  await place.cleanup();
}

console.log(
  JSON.stringify(
    {
      database: pgUrl ? 'postgres' : 'sqlite',
      server: values.server ?? serverBin,
      node: process.version,
      results,
    },
    null,
    2,
  ),
);
for (const r of results) {
  console.log(
    `${r.scenario}: ${r.attempts} attempts (${r.attemptsPerSecond}/s): granted ${r.granted}, 429 ${r.refused429}, ` +
      `other ${r.otherStatus}, connection errors ${r.connectionErrors}; server ${r.serverAlive ? 'alive' : 'GONE'}; server CPU ${r.serverCpuUsPerAttempt} µs/attempt; ` +
      `RSS ${r.idle.peakRssMb} → ${r.flood.peakRssMb} MB (×${r.rssRatio}), ` +
      `descriptors ${r.idle.peakFds} → peak ${r.flood.peakFds} (×${r.fdRatio}), ${r.fdsWhileHeld} once the flood stops with its streams held, ` +
      `/healthz p50 ${r.flood.healthP50Ms} ms, p99 ${r.flood.healthP99Ms} ms (idle p99 ${r.idle.healthP99Ms} ms), ` +
      `max ${r.flood.healthMaxMs} ms, over 100 ms ${r.flood.healthOver100Ms}/${r.flood.samples}, failed ${r.flood.healthFailures}`,
  );
}
