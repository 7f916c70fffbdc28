// What counting a page view costs the process that serves the page: `count()` in a hot loop (memory
// only), and one flush of 100 products' views (one store-time-zone read and one upsert) on a real
// database. The A/B of whole page requests is `bench/ab.mjs --only page-get` (bench/README.md).
//
//   npm run build -w packages/server && node bench/page-view-count.mjs [--db sqlite|postgres]
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { prepareDatabase } from './lib/database.mjs';
import { percentile } from './lib/percentile.mjs';
import { importServerModule } from './lib/paths.mjs';

const { values } = parseArgs({ options: { db: { type: 'string', default: 'sqlite' } } });
const { startPageViewCounter } = await importServerModule('domain/analytics/page-views.js');
const { openDatabase } = await importServerModule('platform/db/database.js');
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const PRODUCTS = 100;
const VIEWS = 1_000_000;

const database = await prepareDatabase({
  kind: values.db,
  pgUrl: process.env.STOREFRONT_TEST_DATABASE_URL,
  seedCount: PRODUCTS,
});
const db = openDatabase(database.databaseUrl, database.openOptions);
// An hour between timed flushes: only the flushes below write.
const counter = startPageViewCounter(db.kysely, { flushIntervalMs: 3_600_000, log: quiet });
try {
  const view = (i) => ({
    storeId: database.storeId,
    productId: database.productIds[i % PRODUCTS],
    livemode: 0,
  });
  for (let round = 1; round <= 3; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < VIEWS; i++) counter.count(view(i));
    const used = process.cpuUsage(before);
    console.log(`count(), round ${round}: ${((used.user + used.system) / VIEWS).toFixed(3)} µs CPU per view`);
    await counter.flush();
  }
  const flushes = [];
  for (let i = 0; i < 50; i++) {
    for (let p = 0; p < PRODUCTS; p++) counter.count(view(p));
    const started = performance.now();
    await counter.flush();
    flushes.push(performance.now() - started);
  }
  flushes.sort((a, b) => a - b);
  console.log(
    `flush of ${PRODUCTS} products' views (${values.db}): p50 ${percentile(flushes, 50).toFixed(2)} ms, ` +
      `p95 ${percentile(flushes, 95).toFixed(2)} ms (once per 5 s per HTTP process)`,
  );
} finally {
  await counter.stop();
  await db.close();
  await database.cleanup();
}
