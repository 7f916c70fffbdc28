// GET /analytics/summary for a whole year on a store with 1,000,000 sales (asked: ≤ 50 ms), against
// GET /checkouts/{id} (one row by its key) measured in the same run on the same server.
//
//   npm run build -w packages/server && node bench/analytics-summary.mjs [--db sqlite,postgres]
//        [--sales 1000000] [--products 50] [--requests 300]
//
// The sales are written straight into the table with one INSERT … SELECT over a generated series
// (spread evenly over the last 365 local days, 5% refunded a day later), and the daily totals from them
// with grouped INSERTs, as the service would have kept them (one row per product and day, and one per
// day for the whole store): orders ×1.4 and page views ×20 of the paid orders. Then `storefront serve` runs as production runs it and answers one request at a
// time: summary and baseline alternate, so a machine busy with other work disturbs both alike.
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { prepareDatabase } from './lib/database.mjs';
import { percentile } from './lib/percentile.mjs';
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
const salesCount = Number(values.sales);
const DAY_MS = 86_400_000;
/** The year summed: the last 365 local days in São Paulo (UTC−3), today included. */
const to = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
const from = new Date(Date.parse(`${to}T00:00:00Z`) - 364 * DAY_MS).toISOString().slice(0, 10);

/** The local date in São Paulo of a text timestamp column, in each database's SQL. */
const localDay = {
  sqlite: (column) => `date(${column}, '-3 hours')`,
  postgres: (column) => `to_char((${column})::timestamptz at time zone 'America/Sao_Paulo', 'YYYY-MM-DD')`,
};

/** n = 0 … count−1, the timestamp of sale n, and a random UUID, in each database's SQL. */
function salesSelect(kind) {
  const start = Date.parse(`${from}T03:00:00Z`); // local midnight
  const step = (Date.now() - start) / salesCount;
  if (kind === 'sqlite') {
    return {
      series: `with recursive seq(n) as (select 0 union all select n + 1 from seq where n < ${salesCount - 1})`,
      from: 'seq',
      createdAt: `strftime('%Y-%m-%dT%H:%M:%fZ', (${start} + n * ${step}) / 1000.0, 'unixepoch')`,
      refundedAt: `strftime('%Y-%m-%dT%H:%M:%fZ', (${start} + n * ${step} + ${DAY_MS}) / 1000.0, 'unixepoch')`,
      id: `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-a' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`,
    };
  }
  const at = (extraMs) =>
    `to_char(to_timestamp((${start} + n * ${step} + ${extraMs}) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return {
    series: '',
    from: `generate_series(0, ${salesCount - 1}) as seq(n)`,
    createdAt: at(0),
    refundedAt: at(DAY_MS),
    id: 'gen_random_uuid()::text',
  };
}

async function seedSales(kysely, kind, storeId, productIds) {
  const { sql } = await importServerDependency('kysely');
  const s = salesSelect(kind);
  const products = productIds.map((id) => `'${id}'`).join(',');
  const pick =
    kind === 'sqlite'
      ? `json_extract('[${productIds.map((id) => `"${id}"`).join(',')}]', '$[' || (n % ${productIds.length}) || ']')`
      : `(array[${products}])[n % ${productIds.length} + 1]`;
  const refunded = `n % 20 = 7`;
  await sql
    .raw(
      `${s.series} insert into sales (id, store_id, livemode, status, amount_cents, payment_method, product_id, items, created_at, refunded_at, refund_status)
       select ${s.id}, '${storeId}', 0, case when ${refunded} then 'refunded' else 'approved' end,
              1990 + (n % 50) * 100, 'pix', ${pick}, '[]', ${s.createdAt},
              case when ${refunded} then ${s.refundedAt} else null end,
              case when ${refunded} then 'succeeded' else null end
       from ${s.from}`,
    )
    .execute(kysely);
  const day = localDay[kind];
  await sql
    .raw(
      `insert into analytics_daily (store_id, livemode, day, product_id, page_views, orders, paid_orders, sales, gross_cents, refunded_cents)
       select store_id, livemode, ${day('created_at')}, product_id, count(*) * 20, count(*) * 14 / 10, count(*), count(*), sum(amount_cents), 0
       from sales where store_id = '${storeId}' group by store_id, livemode, ${day('created_at')}, product_id`,
    )
    .execute(kysely);
  await sql
    .raw(
      `insert into analytics_daily (store_id, livemode, day, product_id, page_views, orders, paid_orders, sales, gross_cents, refunded_cents)
       select store_id, livemode, ${day('refunded_at')}, product_id, 0, 0, 0, 0, 0, sum(amount_cents)
       from sales where store_id = '${storeId}' and status = 'refunded' group by store_id, livemode, ${day('refunded_at')}, product_id
       on conflict (store_id, livemode, day, product_id) do update set refunded_cents = analytics_daily.refunded_cents + excluded.refunded_cents`,
    )
    .execute(kysely);
  // The store's whole-day rows, sums of its products' rows, as the service keeps them beside those.
  await sql
    .raw(
      `insert into analytics_daily (store_id, livemode, day, product_id, page_views, orders, paid_orders, sales, gross_cents, refunded_cents)
       select store_id, livemode, day, '*', sum(page_views), sum(orders), sum(paid_orders), sum(sales), sum(gross_cents), sum(refunded_cents)
       from analytics_daily where store_id = '${storeId}' group by store_id, livemode, day`,
    )
    .execute(kysely);
  // Statistics, as an operator gathers them after an import (bench/lib/seed.mjs says why).
  for (const table of ['sales', 'analytics_daily']) await sql.raw(`analyze ${table}`).execute(kysely);
}

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
    await seedSales(db.kysely, kind, database.storeId, database.productIds);
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
