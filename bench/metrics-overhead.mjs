// What GET /metrics costs the requests it counts: the same app built with and without
// STOREFRONT_METRICS_TOKEN, on one SQLite file, in one process, measured in alternating rounds.
//
//   npm run build -w packages/server && node bench/metrics-overhead.mjs [rounds] [requests per round]
//
// Requests go through Fastify's inject (routing, auth, the hooks, serialization; no sockets), so the
// difference is the service's own CPU per request, without the load generator's noise. Rounds
// alternate off/on so drift from other work on the machine hits both sides alike; the median round
// of each side is reported. A second figure isolates one histogram observation.
import { performance } from 'node:perf_hooks';
import { loadBuilt, openBenchStore } from './lib/in-process.mjs';
import { percentile } from './lib/percentile.mjs';

const { buildApp } = await loadBuilt('channels/server/app.js');
const { observeHttpRequest } = await loadBuilt('platform/metrics/metrics.js');

const rounds = Number(process.argv[2] ?? 10);
const perRound = Number(process.argv[3] ?? 2000);
const { db, config, key, close } = await openBenchStore({ scopes: ['products:read'] });
const apps = {
  off: await buildApp({ config: { ...config, metricsToken: null }, db: db.kysely, logger: false }),
  on: await buildApp({
    config: { ...config, metricsToken: 'bench-metrics-token-0123456789' },
    db: db.kysely,
    logger: false,
  }),
};

// A read that authenticates, queries the database and serializes a page: a typical request.
const request = {
  method: 'GET',
  url: '/api/public/v1/products?limit=1',
  headers: { authorization: `Bearer ${key}` },
};

async function round(app) {
  const cpu = process.cpuUsage();
  for (let i = 0; i < perRound; i++) {
    const res = await app.inject(request);
    if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${res.body}`);
  }
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / perRound;
}

for (const app of Object.values(apps)) await round(app); // warm-up: JIT, schema compilers, SQLite pages
const samples = { off: [], on: [] };
for (let r = 0; r < rounds; r++) {
  for (const side of r % 2 === 0 ? ['off', 'on'] : ['on', 'off']) samples[side].push(await round(apps[side]));
}
const median = (values) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

const observations = 1_000_000;
const start = performance.now();
for (let i = 0; i < observations; i++) observeHttpRequest('GET', '/api/public/v1/products', 200, i % 50);
const observeNs = ((performance.now() - start) * 1e6) / observations;

console.log(
  `node ${process.version}, ${rounds} alternating rounds of ${perRound} GET /products?limit=1 (inject)`,
);
console.log(`CPU per request, metrics off: ${median(samples.off).toFixed(1)} µs (median round)`);
console.log(`CPU per request, metrics on:  ${median(samples.on).toFixed(1)} µs (median round)`);
console.log(`on / off: ${(median(samples.on) / median(samples.off)).toFixed(3)}`);
console.log(`one histogram observation: ${observeNs.toFixed(0)} ns`);

await apps.off.close();
await apps.on.close();
await close();
