// What one whole purchase costs the server: CPU µs per purchase (the server process, its inline
// worker's work included), against a bare Fastify baseline answering the same requests in the same
// run; SQL statements per purchase; latency per step; PostgreSQL's own CPU apart (bench/README.md,
// "Purchase").
//
//   npm run build -w packages/server && node bench/purchase.mjs [--purchases 300] [--concurrency 4]
//   STOREFRONT_TEST_DATABASE_URL=postgres://… node bench/purchase.mjs --db sqlite,postgres
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { prepareDatabase } from './lib/database.mjs';
import { benchDir, resultsDir } from './lib/paths.mjs';
import { percentile } from './lib/percentile.mjs';
import { watchCpu } from './lib/proc-stats.mjs';
import {
  TICKS_PER_SECOND,
  openBacklog,
  pgBackendPids,
  postgresPids,
  readCounter,
  waitUntilDrained,
  watchPids,
} from './lib/purchase-cost.mjs';
import {
  PURCHASE_KINDS,
  baselinePurchaseOnce,
  httpPool,
  purchaseContext,
  purchaseOnce,
  runPurchases,
} from './lib/purchase-steps.mjs';
import { productPagePath } from './lib/purchase-stores.mjs';
import { waitForQuiet } from './lib/quiet.mjs';
import { machineInfo, saveResults } from './lib/results-file.mjs';
import { startBaseline, startStorefront } from './lib/servers.mjs';
import { textTable } from './lib/table.mjs';

const USAGE = `node bench/purchase.mjs [options]

  --purchases N      measured purchases per kind and database (default 300)
  --warmup N         purchases before measuring, on each of server and baseline (default 50)
  --concurrency C    purchases in flight at once (default 4)
  --db LIST          sqlite, postgres or both (postgres needs STOREFRONT_TEST_DATABASE_URL; default both)
  --only LIST        ${Object.keys(PURCHASE_KINDS).join(', ')} (default all)
  --quiet-wait S     before each measurement, wait up to S seconds for other processes to use under
                     20% of the CPU (default 30)
  --profile          run the server under node --cpu-prof and print the top of each profile
  --server PATH      another build's bin/storefront.js
  --json             write the results to bench/results/<time>-purchase.json`;

const { values } = parseArgs({
  options: {
    purchases: { type: 'string', default: '300' },
    warmup: { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '4' },
    db: { type: 'string', default: 'sqlite,postgres' },
    only: { type: 'string', default: Object.keys(PURCHASE_KINDS).join(',') },
    'quiet-wait': { type: 'string', default: '30' },
    profile: { type: 'boolean', default: false },
    server: { type: 'string' },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const list = (text) => text.split(',').map((s) => s.trim());
const settings = {
  purchases: Number(values.purchases),
  warmup: Number(values.warmup),
  concurrency: Number(values.concurrency),
  kinds: list(values.only),
  quietWaitSeconds: Number(values['quiet-wait']),
  profile: values.profile,
};
for (const kind of settings.kinds)
  if (!PURCHASE_KINDS[kind]) throw new Error(`unknown purchase kind ${kind}`);
const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL || null;
const databases = list(values.db).filter((db) => db === 'sqlite' || (db === 'postgres' && pgUrl));
const log = (message) => console.error(`bench: ${message}`);
const load1m = () => Math.round(loadavg()[0] * 100) / 100;

/** The targets: CPU µs per page purchase on SQLite, and the ratio to the baseline. */
const TARGETS = {
  page: { ratio: 7, sqliteUs: 1500 },
  api: { ratio: 8 },
};

function targetOf(kind, db) {
  const target = TARGETS[kind];
  if (!target) return { text: null, met: () => null };
  const parts = [`≤ ${target.ratio}×`];
  if (target.sqliteUs && db === 'sqlite') parts.push(`≤ ${target.sqliteUs} µs`);
  return {
    text: parts.join(', '),
    met: (row) =>
      row.ratio <= target.ratio && (!target.sqliteUs || db !== 'sqlite' || row.cpuUs <= target.sqliteUs)
        ? 'yes'
        : 'no',
  };
}

const perPurchase = (ticks, purchases) => Math.round((ticks / TICKS_PER_SECOND / purchases) * 1e6);

async function measureBaseline({ baseline, kind, ctx, sample }) {
  const pool = httpPool(baseline.url, settings.concurrency);
  try {
    const once = () => baselinePurchaseOnce(pool, kind, ctx, sample);
    await runPurchases({ once, count: settings.warmup, concurrency: settings.concurrency });
    await waitForQuiet({ maxPct: 20, maxWaitSeconds: settings.quietWaitSeconds, log });
    const cpu = watchCpu(baseline.pid, [baseline.pid, process.pid]);
    const run = await runPurchases({ once, count: settings.purchases, concurrency: settings.concurrency });
    const { cpuSeconds, otherCpuPct } = cpu();
    if (run.errors.length > 0) throw new Error(`baseline: ${run.errors[0]}`);
    return { cpuUs: Math.round((cpuSeconds / run.purchases.length) * 1e6), otherCpuPct };
  } finally {
    await pool.close();
  }
}

/** The measured run on the server: CPU of the server and of PostgreSQL, statements, latencies. */
async function measureServer({ server, database, kind, ctx, pool, backlog, metricsToken, appName }) {
  const once = () => purchaseOnce(pool, kind, ctx);
  await runPurchases({ once, count: settings.warmup, concurrency: settings.concurrency });
  await waitUntilDrained({ backlog, pids: [server.pid] });
  await waitForQuiet({ maxPct: 20, maxWaitSeconds: settings.quietWaitSeconds, log });
  // A scrape runs statements of its own (the queue gauges): two in a row tell how many.
  const scrape = () => readCounter(server.url, metricsToken, 'storefront_db_statements_total');
  const first = await scrape();
  const statementsBefore = await scrape();
  const perScrape = statementsBefore - first;

  const postgres = database.kind === 'postgres';
  const backends = postgres ? await watchPids(() => pgBackendPids(pgUrl, appName)) : null;
  const allPostgres = postgres ? await watchPids(postgresPids) : null;
  const own = [server.pid, process.pid];
  const cpu = watchCpu(server.pid, own);
  const loadBefore = load1m();
  const run = await runPurchases({ once, count: settings.purchases, concurrency: settings.concurrency });
  const drainMs = await waitUntilDrained({ backlog, pids: [server.pid] });
  const { cpuSeconds, otherCpuPct } = cpu();
  const pgTicks = backends && (await backends());
  const allPgTicks = allPostgres && (await allPostgres());
  const statements = (await scrape()) - statementsBefore - perScrape;

  const n = run.purchases.length;
  const steps = PURCHASE_KINDS[kind].steps.map((step, i) => {
    const times = run.purchases.map((p) => p[i].ms).sort((a, b) => a - b);
    const ms = (p) => Math.round(percentile(times, p) * 10) / 10;
    return { step: step.name, p50: ms(50), p99: ms(99) };
  });
  return {
    purchases: n,
    errors: run.errors.length,
    firstError: run.errors[0] ?? null,
    purchasesPerSecond: Math.round((n / run.seconds) * 10) / 10,
    cpuUs: n > 0 ? Math.round((cpuSeconds / n) * 1e6) : null,
    statements: n > 0 ? Math.round((statements / n) * 10) / 10 : null,
    pgBackendUs: pgTicks === null ? null : perPurchase(pgTicks, n),
    pgAllUs: allPgTicks === null ? null : perPurchase(allPgTicks, n),
    drainMs,
    otherCpuPct,
    load: `${loadBefore} → ${load1m()}`,
    steps,
  };
}

/** The top of the profile(s) the server wrote on exit, through bench/profile-top.mjs. */
function printProfiles(dir) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'))) {
    console.log(`\nprofile ${join(dir, file)}`);
    console.log(
      execFileSync(process.execPath, [join(benchDir, 'profile-top.mjs'), join(dir, file), '30']).toString(),
    );
  }
}

async function measureDatabase(dbKind) {
  log(`${dbKind}: preparing the database`);
  const database = await prepareDatabase({ kind: dbKind, pgUrl, seedCount: 1000 });
  const metricsToken = randomBytes(24).toString('hex');
  const appName = `storefront-bench-${randomBytes(4).toString('hex')}`;
  const serverEnv = {
    ...database.serverEnv,
    STOREFRONT_ORDER_RATE_LIMIT: '1000000', // per minute, per (IP, store): orders and "Simular pagamento"
    STOREFRONT_METRICS_TOKEN: metricsToken,
    PGAPPNAME: appName, // names the server's PostgreSQL connections, to find their backends
  };
  const profileDir = settings.profile
    ? join(resultsDir, 'profiles', `purchase-${new Date().toISOString().replace(/[:.]/g, '-')}-${dbKind}`)
    : null;
  const server = await startStorefront({
    database: { ...database, serverEnv },
    options: { rateLimit: 1_000_000, logLevel: 'info', serverBin: values.server ?? null },
    profileDir,
  });
  const baseline = await startBaseline({ logDir: database.dir });
  const backlog = await openBacklog(database);
  const pool = httpPool(server.url, settings.concurrency);
  const rows = [];
  try {
    const pagePath = await productPagePath(server, database);
    const ctx = purchaseContext({ origin: server.url, pagePath, key: database.key });
    for (const kind of settings.kinds) {
      log(`${database.kind} ${kind}: sample, baseline, server`);
      const sample = await purchaseOnce(pool, kind, ctx);
      const base = await measureBaseline({ baseline, kind, ctx, sample });
      const result = await measureServer({
        server,
        database,
        kind,
        ctx,
        pool,
        backlog,
        metricsToken,
        appName,
      });
      const target = targetOf(kind, database.kind);
      const row = {
        kind,
        db: database.kind,
        ...result,
        bytes: sample.map((s) => s.bytes).join('/'),
        baselineCpuUs: base.cpuUs,
        baselineOtherCpuPct: base.otherCpuPct,
        ratio: base.cpuUs > 0 ? Math.round((result.cpuUs / base.cpuUs) * 10) / 10 : null,
        target: target.text,
      };
      row.met = target.met(row);
      rows.push(row);
      log(`${database.kind} ${kind}: ${row.cpuUs} µs/purchase, baseline ${row.baselineCpuUs}, ${row.ratio}×`);
    }
  } finally {
    await pool.close();
    await backlog.close();
    await baseline.stop();
    await server.stop();
    if (profileDir) printProfiles(profileDir);
    await database.cleanup();
  }
  return rows;
}

const COLUMNS = [
  ['kind', (r) => r.kind],
  ['db', (r) => r.db],
  ['purchases', (r) => r.purchases],
  ['errors', (r) => r.errors],
  ['purchases/s', (r) => r.purchasesPerSecond],
  ['CPU µs/purchase', (r) => r.cpuUs],
  ['base µs/purchase', (r) => r.baselineCpuUs],
  ['ratio', (r) => (r.ratio == null ? null : `${r.ratio}×`)],
  ['statements', (r) => r.statements],
  ['PG µs (backends)', (r) => r.pgBackendUs],
  ['PG µs (all)', (r) => r.pgAllUs],
  ['bytes', (r) => r.bytes],
  ['drain ms', (r) => r.drainMs],
  ['other CPU', (r) => `${Math.max(r.otherCpuPct ?? 0, r.baselineOtherCpuPct ?? 0)}%`],
  ['load', (r) => r.load],
  ['target', (r) => r.target],
  ['met', (r) => r.met],
];

const startedAt = new Date().toISOString();
log(
  `${settings.purchases} purchases (after ${settings.warmup}), ${settings.concurrency} in flight, ` +
    `load average ${load1m()}`,
);
const rows = [];
for (const db of databases) rows.push(...(await measureDatabase(db)));
console.log(textTable(rows, COLUMNS));
console.log();
console.log(
  textTable(
    rows.flatMap((r) => r.steps.map((s) => ({ kind: r.kind, db: r.db, ...s }))),
    [
      ['kind', (r) => r.kind],
      ['db', (r) => r.db],
      ['step', (r) => r.step],
      ['p50 ms', (r) => r.p50],
      ['p99 ms', (r) => r.p99],
    ],
  ),
);
for (const r of rows.filter((row) => row.firstError)) console.log(`${r.kind} ${r.db}: ${r.firstError}`);
if (values.json) {
  const file = saveResults({ startedAt, mode: 'purchase', machine: machineInfo(), settings, rows });
  log(`results: ${file}`);
}
