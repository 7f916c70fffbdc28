// How long one hostile request body holds the service's event loop, against each route that reads a
// body: the worst body of at most 1 MiB, against a tiny body on the same route (the baseline).
//
//   npm run build -w packages/server && node bench/hostile-bodies.mjs [repeats] [--server-bin <bin>]
//
// The built `storefront serve` runs as a child process on a fresh SQLite file (its Demo store gives
// the purchase page and an API key). While a body is sent, a probe asks GET /healthz back to back on
// a connection of its own: a probe that arrives while the event loop is held waits until it is free,
// so the slowest probe of the request's lifetime is the longest block (median of `repeats` runs,
// default 3). Beside it, the server's CPU per request (from /proc, over 3 × `repeats` requests with no
// probe): on a machine shared with other work a block stretches with everyone else's demand, while
// the CPU is what the request would hold a quiet machine's event loop for. Target: at most 50 ms of
// CPU for every body (`met`), the tiny body's block showing how much the machine itself adds.
import { Buffer } from 'node:buffer';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { startNodeProcess } from './lib/child-process.mjs';
import { freePort } from './lib/free-port.mjs';
import { serverBin } from './lib/paths.mjs';
import { percentile } from './lib/percentile.mjs';
import { processTicks } from './lib/proc-stats.mjs';

const TARGET_MS = 50;
const MiB = 1024 * 1024;
const args = process.argv.slice(2);
const binAt = args.indexOf('--server-bin');
const bin = binAt === -1 ? serverBin : args.splice(binAt, 2)[1];
const repeats = Number(args[0] ?? 3);

/** Bodies of at most 1 MiB, each the worst of its shape for a parser or a walk over the value. */
const repeatTo = (unit, open = '', close = '', budget = MiB - 16) =>
  open + unit.repeat(Math.floor((budget - open.length - close.length) / unit.length)) + close;
const nested = (open, close) => open.repeat(MiB / 2 - 8) + close.repeat(MiB / 2 - 8);
const deepThenWide = '['.repeat(31) + repeatTo('0,', '', '0', MiB - 80) + ']'.repeat(31);
const BODIES = {
  'nested arrays [[[…]]]': nested('[', ']'),
  'nested objects {"a":{"a":…}}': '{"a":'.repeat(MiB / 6 - 8) + '{}' + '}'.repeat(MiB / 6 - 8),
  'unclosed [[[[…': '['.repeat(MiB - 16),
  'wide array [0,0,…]': repeatTo('0,', '[', '0]'),
  'wide array of objects [{},{},…]': repeatTo('{},', '[', '{}]'),
  'wide array of strings ["",…]': repeatTo('"",', '[', '""]'),
  'object of many keys {"k1":0,…}': (() => {
    const parts = [];
    let size = 2;
    for (let i = 0; size < MiB - 32; i++) {
      const part = `"k${i}":0`;
      parts.push(part);
      size += part.length + 1;
    }
    return `{${parts.join(',')}}`;
  })(),
  'one long string': repeatTo('a', '{"pix":"', '"}'),
  'escaped string \\u0041…': repeatTo('\\u0041', '{"pix":"', '"}'),
  '31 levels, then wide': deepThenWide,
  'many 32-level nests': repeatTo('['.repeat(31) + ']'.repeat(31) + ',', '[', '[]]'),
  // At the limit of 20,000 values and keys, the rest of the megabyte in one long string.
  '19,990 objects, then a long string': `[${'{},'.repeat(19_990)}"${'a'.repeat(MiB - 80_000)}"]`,
  'object of 9,999 keys, long names': `{${Array.from({ length: 9_999 }, (_, i) => `"${String(i).padStart(96, 'k')}":0`).join(',')}}`,
};
const TINY = '{}';
for (const [name, body] of Object.entries(BODIES)) {
  if (Buffer.byteLength(body) > MiB) throw new Error(`${name}: ${Buffer.byteLength(body)} bytes`);
}

const dir = mkdtempSync(join(tmpdir(), 'sf-bench-hostile-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const logFile = join(dir, 'server.log');
const server = await startNodeProcess({
  script: bin,
  args: ['serve'],
  env: {
    PATH: process.env.PATH,
    DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    STOREFRONT_RATE_LIMIT: '1000000',
    STOREFRONT_ORDER_RATE_LIMIT: '1000000',
    NODE_ENV: 'production',
  },
  logFile,
  readyUrl: `${url}/readyz`,
});

async function demoStore() {
  for (;;) {
    const log = readFileSync(logFile, 'utf8');
    const key = /sk_test_[0-9A-Za-z]{40}/.exec(log)?.[0];
    const page = /Buy its demo product \(test mode\): https?:\/\/[^/\s]+(\/p\/\S+)/.exec(log)?.[1];
    if (key && page) return { key, page };
    await sleep(50);
  }
}

/** GET /healthz back to back on one keep-alive connection until `stop`; the slowest answer wins. */
function probe() {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let running = true;
  let slowest = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      await new Promise((resolve, reject) => {
        const req = request(`${url}/healthz`, { agent }, (res) => res.resume().on('end', resolve));
        req.on('error', reject);
        req.end();
      });
      slowest = Math.max(slowest, performance.now() - started);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      agent.destroy();
      return slowest;
    },
  };
}

function post(path, body, headers) {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => res.resume().on('end', () => resolve(res.statusCode)),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The longest block while `body` is sent and answered, the median of `repeats`, and its status. */
async function blockOf(route, body) {
  const samples = [];
  let status = 0;
  for (let i = 0; i < repeats; i++) {
    const watch = probe();
    await sleep(50); // the probe's connection is open and warm
    status = await post(route.path, body, route.headers);
    await sleep(20);
    samples.push(await watch.stop());
  }
  return {
    ms: percentile(
      samples.sort((a, b) => a - b),
      50,
    ),
    status,
  };
}

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

/**
 * The server's CPU per request for `body`, over `n` requests sent one after another with no probe:
 * on a machine shared with other work, wall-clock blocks stretch with every other process's
 * demand, while the CPU a request costs is what it would hold a quiet machine's event loop for.
 */
async function cpuOf(route, body, n = repeats * 3) {
  const before = processTicks(server.pid);
  for (let i = 0; i < n; i++) await post(route.path, body, route.headers);
  return ((processTicks(server.pid) - before) * TICK_MS) / n;
}

const { key, page } = await demoStore();
const origin = { origin: url };
const ROUTES = [
  { name: 'POST /callbacks/pix/x', path: '/callbacks/pix/x', headers: {} },
  { name: 'POST /p/<h>/<s>/orders', path: `${page}/orders`, headers: origin },
  { name: 'POST /p/<h>/<s>/quote', path: `${page}/quote`, headers: origin },
  {
    name: 'POST /api/public/v1/payments/pix',
    path: '/api/public/v1/payments/pix',
    headers: { authorization: `Bearer ${key}` },
  },
];

const rows = [];
const worse = (a, b, field) => (a === null || b[field] > a[field] ? b : a);
try {
  for (const route of ROUTES) {
    await blockOf(route, TINY); // warm-up: JIT, schema compilers, SQLite pages
    const baseline = { ...(await blockOf(route, TINY)), cpu: await cpuOf(route, TINY) };
    let byBlock = null;
    let byCpu = null;
    for (const [name, body] of Object.entries(BODIES)) {
      const result = { name, ...(await blockOf(route, body)), cpu: await cpuOf(route, body) };
      console.error(
        `${route.name} · ${name}: ${result.status}, block ${result.ms.toFixed(1)} ms, CPU ${result.cpu.toFixed(1)} ms`,
      );
      byBlock = worse(byBlock, result, 'ms');
      byCpu = worse(byCpu, result, 'cpu');
    }
    rows.push({ route: route.name, baseline, byBlock, byCpu });
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

console.log(
  `Per request, bodies of at most 1 MiB (block: median of ${repeats}; CPU: server CPU per request over ${repeats * 3}; ` +
    `tiny body = ${TINY}; target ≤ ${TARGET_MS} ms):`,
);
console.log(
  '| route | tiny body: block, CPU | longest block: body (status) | ms | ratio | most CPU: body | ms | met |',
);
console.log('|---|---|---|---|---|---|---|---|');
for (const { route, baseline, byBlock, byCpu } of rows) {
  const met = byCpu.cpu <= TARGET_MS ? 'yes' : 'NO';
  console.log(
    `| ${route} | ${baseline.ms.toFixed(1)} ms, ${baseline.cpu.toFixed(1)} ms | ${byBlock.name} (${byBlock.status}) | ` +
      `${byBlock.ms.toFixed(1)} | ${(byBlock.ms / baseline.ms).toFixed(1)}x | ${byCpu.name} | ${byCpu.cpu.toFixed(1)} | ${met} |`,
  );
}
