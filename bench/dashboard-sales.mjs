// The dashboard with 100,000 sales in one store (bench/README.md, "Dashboard with 100,000 sales"):
// server time (p50/p95, from Fastify's own clock: request received → response sent) of Início (30
// dias), Vendas (first and a deep page), a sale's page, the search by e-mail and by a rare name,
// against GET /healthz (the bare baseline) in the same run; the CSV export of every sale (time,
// peak RSS); the weight (bytes and gzip) of every dashboard page; the query plans of Vendas.
//
//   npm run build -w packages/server && node bench/dashboard-sales.mjs [--sales 100000] [--postgres]
import { Buffer } from 'node:buffer';
import { clearInterval, setInterval } from 'node:timers';
import { gzipSync } from 'node:zlib';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedDashboardSales } from './lib/dashboard-seed.mjs';
import { importServerDependency, importServerModule } from './lib/paths.mjs';
import { percentile } from './lib/percentile.mjs';

const args = process.argv.slice(2);
const SALES = Number(args[args.indexOf('--sales') + 1] || 100_000) || 100_000;
const POSTGRES = args.includes('--postgres') ? process.env.STOREFRONT_TEST_DATABASE_URL : null;
if (args.includes('--postgres') && !POSTGRES)
  throw new Error('--postgres needs STOREFRONT_TEST_DATABASE_URL');
const ROUNDS = 40;
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';

const { openDatabase } = await importServerModule('db/database.js');
const { migrateToLatest } = await importServerModule('db/migrate.js');
const { loadConfig } = await importServerModule('config/config.js');
const { buildApp } = await importServerModule('app.js');
const { createStore } = await importServerModule('stores/stores.js');
const { createApiKey } = await importServerModule('api-keys/api-keys.js');
const { addMember } = await importServerModule('dashboard/accounts/team.js');
const { hashPassword } = await importServerModule('dashboard/accounts/passwords.js');
const { filteredSalesQuery, nameSearchFloor } = await importServerModule(
  'dashboard/pages/vendas/sales-filter.js',
);
const { sql } = await importServerDependency('kysely');

const dir = mkdtempSync(join(tmpdir(), 'storefront-dashboard-sales-'));
const url = POSTGRES ?? `sqlite:${join(dir, 'bench.sqlite')}`;
const schema = `sf_bench_${Date.now()}`;
let pg = null;
if (POSTGRES) {
  const { default: Pg } = await import('pg');
  pg = new Pg.Client({ connectionString: POSTGRES });
  await pg.connect();
  await pg.query(`create schema ${schema}`);
}
const db = openDatabase(url, POSTGRES ? { searchPath: schema } : {});
await migrateToLatest(db.kysely);
const config = loadConfig({ DATABASE_URL: url, STOREFRONT_SECRET: SECRET });
const app = await buildApp({ config, db: db.kysely, logger: false });
// Server time: Fastify's clock from the request's arrival to the response's end, per URL.
const serverTimes = new Map();
app.addHook('onResponse', async (request, reply) => {
  serverTimes.set(request.raw.url, [...(serverTimes.get(request.raw.url) ?? []), reply.elapsedTime]);
});
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;
const ms = (n) => n.toFixed(1);

async function get(path, headers = {}) {
  // A kept-alive socket the server closed while the bench was busy (seeding) fails once: retry.
  const request = () => globalThis.fetch(`${base}${path}`, { headers, redirect: 'manual' });
  const response = await request().catch(request);
  const body = Buffer.from(await response.arrayBuffer());
  return { status: response.status, body };
}

try {
  const store = await createStore(db.kysely, { name: 'Loja Bench' });
  const password = 'senha-do-bench-123';
  await addMember(db.kysely, {
    storeId: store.id,
    email: 'dono@bench.example',
    role: 'owner',
    passwordHash: await hashPassword(password),
  });
  const { key } = await createApiKey(db.kysely, {
    storeId: store.id,
    mode: 'test',
    scopes: ['pix:write', 'products:write'],
  });
  const api = (path, body) =>
    globalThis
      .fetch(`${base}/api/public/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body ?? {}),
      })
      .then((r) => r.json());
  const products = [];
  for (const nome of ['Curso de Violão', 'E-book de Receitas', 'Mentoria'])
    products.push((await api('/products', { nome, preco: 10 })).id);
  const charge = await api('/payments/pix', {
    amount: 10,
    customer: { name: 'Modelo', email: 'm@bench.example' },
  });
  await api(`/payments/pix/${charge.id}/simulate_payment`);
  const template = await db.kysely.selectFrom('sales').selectAll().executeTakeFirstOrThrow();
  // Signed in before the seeding (12 h idle is the limit).
  const login = await globalThis.fetch(`${base}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new globalThis.URLSearchParams({ email: 'dono@bench.example', password }).toString(),
  });
  const cookie = /sf_session=[^;]+/.exec(login.headers.get('set-cookie'))[0];
  const seedStart = process.hrtime.bigint();
  const sample = await seedDashboardSales(db.kysely, { template, productIds: products, count: SALES });
  if (POSTGRES) await pg.query(`analyze ${schema}.sales`);
  else await sql`analyze`.execute(db.kysely);
  console.log(
    `${POSTGRES ? 'PostgreSQL' : 'SQLite'}: seeded ${SALES} sales in ${ms(Number(process.hrtime.bigint() - seedStart) / 1e9)} s`,
  );

  // A deep page: the cursor of the sale 50,000 rows down (as the "Próxima página" link names it).
  const deep = await db.kysely
    .selectFrom('sales')
    .select('id')
    .where('store_id', '=', store.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(Math.floor(SALES / 2))
    .limit(1)
    .executeTakeFirstOrThrow();
  const cases = {
    '/healthz (baseline)': '/healthz',
    'Início, 30 dias': '/dashboard?periodo=30',
    'Início, 90 dias': '/dashboard?periodo=90',
    'Vendas, first page': '/dashboard/vendas',
    'Vendas, page 1,001 (keyset)': `/dashboard/vendas?antes=${deep.id}`,
    'Vendas, status Reembolsada': '/dashboard/vendas?status=refunded',
    "a sale's page": `/dashboard/vendas/${sample.newest}`,
    'search by e-mail': `/dashboard/vendas?q=${encodeURIComponent(sample.email)}`,
    'search by a rare name, page 1': `/dashboard/vendas?q=${encodeURIComponent(sample.rareName.split(' ')[1])}`,
    'search by a common name': '/dashboard/vendas?q=silva',
  };
  for (const path of Object.values(cases)) {
    const first = await get(path, { cookie });
    if (first.status !== 200) throw new Error(`${path} answered ${first.status}`);
  }
  serverTimes.clear();
  // Interleaved rounds: machine noise falls on every case alike.
  for (let round = 0; round < ROUNDS; round++)
    for (const path of Object.values(cases)) await get(path, { cookie });
  const p = (path, q) =>
    percentile(
      [...serverTimes.get(path)].sort((a, b) => a - b),
      q,
    );
  const baseline = p('/healthz', 50);
  console.log(`server time, ${ROUNDS} requests each (ms):`);
  console.log(`  ${'page'.padEnd(30)} ${'p50'.padStart(7)} ${'p95'.padStart(7)}  p50/baseline`);
  for (const [name, path] of Object.entries(cases))
    console.log(
      `  ${name.padEnd(30)} ${ms(p(path, 50)).padStart(7)} ${ms(p(path, 95)).padStart(7)}  ${(p(path, 50) / baseline).toFixed(1)}x`,
    );

  // A name search reads a window of sales a page: follow "Próxima página" until the rare name shows.
  let path = cases['search by a rare name, page 1'];
  let pagesRead = 0;
  let followMs = 0;
  for (;;) {
    serverTimes.clear();
    const page = await get(path, { cookie });
    pagesRead += 1;
    followMs += serverTimes.get(path)[0];
    const html = page.body.toString();
    if (html.includes(sample.rareName)) break;
    const next = /<a href="(\/dashboard\/vendas\?[^"]*)">Próxima página<\/a>/.exec(html);
    if (!next) throw new Error('the rare name was not found');
    path = next[1].replace(/&amp;/g, '&');
  }
  console.log(
    `rare name found on page ${pagesRead} of its search: ${ms(followMs)} ms of server time in all (${ms(followMs / pagesRead)} ms a page)`,
  );

  // The CSV export of every sale: its time and the process's peak RSS meanwhile (sampled every 5 ms).
  globalThis.gc?.();
  const rssBefore = process.memoryUsage.rss();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 5);
  const csvStart = process.hrtime.bigint();
  const csv = await globalThis.fetch(`${base}/dashboard/vendas.csv`, { headers: { cookie } });
  let bytes = 0;
  let lines = 0;
  for await (const chunk of csv.body) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) lines += 1;
  }
  const csvMs = Number(process.hrtime.bigint() - csvStart) / 1e6;
  clearInterval(sampler);
  console.log(
    `CSV export: ${lines - 1} sales, ${(bytes / 1e6).toFixed(1)} MB in ${ms(csvMs / 1000)} s; ` +
      `RSS ${(rssBefore / 2 ** 20).toFixed(0)} MiB before, peak ${(rssPeak / 2 ** 20).toFixed(0)} MiB (+${((rssPeak - rssBefore) / 2 ** 20).toFixed(0)} MiB)`,
  );

  // Page weight: the HTML of each page as served (no other request: the CSS and script are cached).
  const pages = {
    Início: '/dashboard',
    Vendas: '/dashboard/vendas',
    'Venda (sale page)': `/dashboard/vendas/${sample.newest}`,
    Pedidos: '/dashboard/pedidos',
    Assinaturas: '/dashboard/assinaturas',
    Desenvolvedores: '/dashboard/desenvolvedores',
    Configurações: '/dashboard/configuracoes',
    'Configurações › PSP': '/dashboard/configuracoes/psp',
    Login: '/dashboard/login',
  };
  console.log('page weight (HTML):');
  for (const [name, path] of Object.entries(pages)) {
    const page = await get(path, path === '/dashboard/login' ? {} : { cookie });
    console.log(
      `  ${name.padEnd(22)} ${String(page.status).padEnd(4)} ${String(page.body.length).padStart(7)} B  gzip ${String(gzipSync(page.body).length).padStart(6)} B`,
    );
  }

  // The plans of the Vendas queries: each must be a range of an index, never a scan or a sort.
  const cursor = await db.kysely
    .selectFrom('sales')
    .select(['created_at', 'id'])
    .where('id', '=', deep.id)
    .executeTakeFirstOrThrow();
  const scope = { storeId: store.id, livemode: false };
  const plans = {
    'first page': [{}, null],
    'keyset page': [{}, cursor],
    'status, keyset page': [{ status: 'refunded' }, cursor],
    'product, keyset page': [{ produto: products[1] }, cursor],
    'e-mail search': [{ q: sample.email }, null],
    'name search, its window floor': [{ q: 'quintanilha' }, null, 'floor'],
  };
  console.log('query plans (Vendas):');
  for (const [name, [query, at, windowed]] of Object.entries(plans)) {
    const floor = windowed ? await nameSearchFloor(db.kysely, scope, query, at) : null;
    const compiled = filteredSalesQuery(db.kysely, scope, query, at, 51, floor).compile();
    const explain = POSTGRES ? 'explain ' : 'explain query plan ';
    const result = await db.kysely.executeQuery({ ...compiled, sql: explain + compiled.sql });
    const text = result.rows.map((row) => row['QUERY PLAN'] ?? row.detail).join(' | ');
    console.log(`  ${name}: ${text}`);
  }
} finally {
  await app.close();
  await db.close();
  if (pg) {
    await pg.query(`drop schema ${schema} cascade`);
    await pg.end();
  }
  rmSync(dir, { recursive: true, force: true });
}
