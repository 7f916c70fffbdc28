// GET /analytics/summary for a whole year on a store with 1,000,000 sales (asked: ≤ 50 ms), against
// GET /checkouts/{id} (one row by its key) measured in the same run on the same server.
//
//   npm run build -w packages/server && node bench/analytics-summary.mjs [--db sqlite,postgres]
//        [--sales 1000000] [--products 50] [--requests 300]
//
// The sales are written straight into the tables by bench/lib/dashboard-seed.mjs (INSERT … SELECT over
// a generated series: the last 365 local days, Pix and card, refunds and chargebacks), with the daily
// totals they add up to, as the service keeps them (one row per product and day, and one per day for
// the whole store). Then `storefront serve` runs as production runs it and answers one request at a
// time: summary and baseline alternate, so a machine busy with other work disturbs both alike.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { prepareDatabase } from './lib/database.mjs';
import { percentile } from './lib/percentile.mjs';
import { seedSales } from './lib/dashboard-seed.mjs';
import { importServerDependency, importServerModule } from './lib/paths.mjs';
import { startStorefront } from './lib/servers.mjs';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite,postgres' },
    sales: { type: 'string', default: '1000000' },
    products: { type: 'string', default: '50' },
    requests: { type: 'string', default: '300' },
  },
});
const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL;
const { sql } = await importServerDependency('kysely');
const salesCount = Number(values.sales);
const DAY_MS = 86_400_000;
/** The year summed: the last 365 local days in São Paulo (UTC−3), today included. */
const to = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
const from = new Date(Date.parse(`${to}T00:00:00Z`) - 364 * DAY_MS).toISOString().slice(0, 10);

async function timed(url, headers) {
  const started = performance.now();
  const res = await globalThis.fetch(url, { headers });
  const body = await res.text();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${url}: ${res.status} ${body}`);
  return { ms, body };
}

const summarize = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
};
const fixed = (ms) => ms.toFixed(2);

async function runOne(kind) {
  const database = await prepareDatabase({ kind, pgUrl, seedCount: Number(values.products) });
  const { openDatabase } = await importServerModule('platform/db/database.js');
  const db = openDatabase(database.databaseUrl, database.openOptions);
  let server = null;
  try {
    const seedStarted = Date.now();
    // From local midnight of the first day summed to now, so every sale is in the year asked for.
    const days = (Date.now() - Date.parse(`${from}T03:00:00Z`)) / DAY_MS;
    await seedSales(db.kysely, { storeId: database.storeId, count: salesCount, days });
    // What PostgreSQL's autovacuum does after such a load, done before measuring (SQLite has none).
    if (kind === 'postgres')
      for (const table of ['sales', 'card_payments', 'analytics_daily'])
        await sql.raw(`vacuum analyze ${table}`).execute(db.kysely);
    const rows = await db.kysely
      .selectFrom('analytics_daily')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    console.error(
      `analytics-summary: ${kind}: ${salesCount} sales and ${rows.n} daily rows seeded in ${Date.now() - seedStarted} ms`,
    );
    await db.close();

    server = await startStorefront({ database, options: { rateLimit: 1_000_000, logLevel: 'info' } });
    const headers = { authorization: `Bearer ${database.key}` };
    const urls = {
      'summary 365 days': `${server.api}/analytics/summary?from=${from}&to=${to}`,
      'summary 365 days, one product': `${server.api}/analytics/summary?from=${from}&to=${to}&product_id=${database.productIds[0]}`,
      'baseline GET /checkouts/{id}': `${server.api}/checkouts/${database.checkoutId}`,
    };
    const check = JSON.parse((await timed(urls['summary 365 days'], headers)).body);
    if (check.sales !== salesCount || check.days.length !== 365) {
      throw new Error(`the summary counts ${check.sales} sales over ${check.days.length} days`);
    }
    const samples = Object.fromEntries(Object.keys(urls).map((name) => [name, []]));
    const requests = Number(values.requests);
    for (let i = 0; i < requests + 20; i++) {
      for (const [name, url] of Object.entries(urls)) {
        const { ms } = await timed(url, headers);
        if (i >= 20) samples[name].push(ms); // the first 20 warm up
      }
    }
    const baseline = summarize(samples['baseline GET /checkouts/{id}']);
    return Object.entries(samples).map(([name, list]) => {
      const { p50, p95 } = summarize(list);
      return { db: kind, request: name, p50, p95, ratio: p50 / baseline.p50 };
    });
  } finally {
    await server?.stop();
    await db.close().catch(() => {});
    await database.cleanup();
  }
}

const kinds = values.db.split(',').filter((kind) => kind === 'sqlite' || pgUrl);
if (kinds.length < values.db.split(',').length) {
  console.error('analytics-summary: postgres skipped: STOREFRONT_TEST_DATABASE_URL is not set');
}
const results = [];
for (const kind of kinds) results.push(...(await runOne(kind)));
console.log(`GET /analytics/summary, ${salesCount} sales, ${values.requests} requests each, one at a time`);
console.log('db        request                          p50 ms  p95 ms  p50 / baseline  ≤ 50 ms (p95)');
for (const r of results) {
  const verdict = r.request.startsWith('summary') ? (r.p95 <= 50 ? 'yes' : 'NO') : '';
  console.log(
    `${r.db.padEnd(9)} ${r.request.padEnd(32)} ${fixed(r.p50).padStart(6)}  ${fixed(r.p95).padStart(6)}  ${r.ratio.toFixed(2).padStart(14)}  ${verdict}`,
  );
}
