// The dashboard with 1,000,000 sales in one store (bench/README.md, "Dashboard with 1,000,000 sales"):
// server time (p50/p95, from Fastify's own clock: request received → response sent) of Início (30 and
// 90 dias), Vendas (the first page and one half-way down), a sale's page, the search by e-mail and by
// name, against GET /healthz (the bare baseline) in the same run; the CSV export of a tenth, a half
// and all of the sales (time, peak RSS: flat memory shows as the same rise for a half and all); the weight
// (bytes and gzip) of every dashboard page; the query plans of Vendas.
//
//   npm run build -w packages/server
//   node --expose-gc bench/dashboard-sales.mjs [--sales 1000000] [--postgres]
import { clearInterval, setInterval } from 'node:timers';
import { gzipSync } from 'node:zlib';
import { startDashboardBench } from './lib/dashboard-bench.mjs';
import { seedSales } from './lib/dashboard-seed.mjs';
import { importServerModule } from './lib/paths.mjs';
import { percentileOf } from './lib/percentile.mjs';

const ROUNDS = 200;
/** Days the sales span: a year, as a store with a million sales has had them. */
const DAYS = 365;
const { filteredSalesQuery, nameSearchFloor } = await importServerModule(
  'channels/dashboard/sales/sales-filter.js',
);

const bench = await startDashboardBench({ size: { name: 'sales', fallback: 1_000_000 } });
const { base, db, store } = bench;
const SALES = bench.size;
const ms = (n) => n.toFixed(1);
const mib = (bytes) => (bytes / 2 ** 20).toFixed(0);

try {
  const api = await bench.apiClient(['products:write']);
  const products = [];
  for (const nome of ['Curso de Violão', 'E-book de Receitas', 'Mentoria'])
    products.push((await api('/products', { nome, preco: 10 })).id);
  // Signed in before the seeding (12 h idle is the limit).
  const cookie = await bench.signInOwner();
  const seedStart = process.hrtime.bigint();
  const sample = await seedSales(db.kysely, { storeId: store.id, count: SALES, days: DAYS });
  // PostgreSQL's autovacuum vacuums and analyzes a table after such a load (done here, before
  // measuring); a SQLite database never gathers statistics (the server runs no ANALYZE), so its
  // plans are measured without any.
  if (bench.postgres)
    for (const table of ['sales', 'card_payments', 'analytics_daily']) await bench.analyze(table);
  console.log(
    `${bench.postgres ? 'PostgreSQL' : 'SQLite'}: seeded ${SALES} sales in ${ms(Number(process.hrtime.bigint() - seedStart) / 1e9)} s`,
  );

  // A deep page: the cursor of the sale half-way down (as the "Próxima página" link names it).
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
    'Vendas, half-way down': `/dashboard/vendas?antes=${deep.id}`,
    'Vendas, status Reembolsada': '/dashboard/vendas?status=refunded',
    "a sale's page (card)": `/dashboard/vendas/${sample.cardSale}`,
    'search by e-mail': `/dashboard/vendas?q=${encodeURIComponent(sample.email)}`,
    'search by CPF': `/dashboard/vendas?q=${sample.document}`,
    'search by a rare name, page 1': `/dashboard/vendas?q=${encodeURIComponent(sample.rareName.split(' ')[1])}`,
    'search by a common name': '/dashboard/vendas?q=silva',
  };
  for (const path of Object.values(cases)) await bench.timed(path, { cookie });
  // Each search finds its one customer's sale (the list links each sale it shows).
  const salesShown = async (path) =>
    [
      ...(await bench.timed(path, { cookie })).text.matchAll(/href="\/dashboard\/vendas\/([0-9a-f-]{36})"/g),
    ].map((match) => match[1]);
  const byEmail = await salesShown(cases['search by e-mail']);
  const byDocument = await salesShown(cases['search by CPF']);
  if (byEmail.length !== 1 || byDocument.join() !== byEmail.join())
    throw new Error(`the searches found ${byEmail.length} and ${byDocument.length} sales`);
  // Interleaved rounds: machine noise falls on every case alike.
  const serverTimes = new Map(Object.values(cases).map((path) => [path, []]));
  for (let round = 0; round < ROUNDS; round++)
    for (const path of Object.values(cases))
      serverTimes.get(path).push((await bench.send(path, { cookie })).serverMs);
  const p = (path, q) => percentileOf(serverTimes.get(path), q);
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
    const page = await bench.send(path, { cookie });
    pagesRead += 1;
    followMs += page.serverMs;
    const html = page.text;
    if (html.includes(sample.rareName)) break;
    const next = /<a href="(\/dashboard\/vendas\?[^"]*)">Próxima página<\/a>/.exec(html);
    if (!next) throw new Error('the rare name was not found');
    path = next[1].replace(/&amp;/g, '&');
  }
  console.log(
    `rare name found on page ${pagesRead} of its search: ${ms(followMs)} ms of server time in all (${ms(followMs / pagesRead)} ms a page)`,
  );

  // The CSV export of the last tenth of the days, of the last half, then of every sale: its time and
  // the process's peak RSS meanwhile (sampled every 5 ms), from the RSS after a collection
  // (--expose-gc). Garbage accumulates up to V8's next full collection, so the rise is bounded, not
  // zero: flat memory shows as the same rise for a half and for all.
  async function csvExport(path) {
    globalThis.gc?.();
    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 5);
    const start = process.hrtime.bigint();
    const csv = await globalThis.fetch(`${base}${path}`, { headers: { cookie } });
    let bytes = 0;
    let lines = 0;
    for await (const chunk of csv.body) {
      bytes += chunk.length;
      for (const byte of chunk) if (byte === 10) lines += 1;
    }
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    clearInterval(sampler);
    console.log(
      `CSV export ${path}: ${lines - 1} sales, ${(bytes / 1e6).toFixed(1)} MB in ${ms(seconds)} s; ` +
        `RSS ${mib(rssBefore)} MiB before, peak ${mib(rssPeak)} MiB (+${mib(rssPeak - rssBefore)} MiB)`,
    );
  }
  const daysBack = (days) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
  await csvExport(`/dashboard/vendas.csv?de=${daysBack(DAYS / 10)}`);
  await csvExport(`/dashboard/vendas.csv?de=${daysBack(DAYS / 2)}`);
  await csvExport('/dashboard/vendas.csv');

  // Page weight: the HTML of each page as served (no other request: the CSS and script are cached).
  const pages = {
    Início: '/dashboard',
    Vendas: '/dashboard/vendas',
    'Venda (sale page)': `/dashboard/vendas/${sample.cardSale}`,
    Pedidos: '/dashboard/pedidos',
    Assinaturas: '/dashboard/assinaturas',
    Desenvolvedores: '/dashboard/desenvolvedores',
    Configurações: '/dashboard/configuracoes',
    'Configurações › PSP': '/dashboard/configuracoes/psp',
    Login: '/dashboard/login',
  };
  console.log('page weight (HTML):');
  for (const [name, path] of Object.entries(pages)) {
    const page = await bench.send(path, path === '/dashboard/login' ? {} : { cookie });
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
  const scope = { storeId: store.id, livemode: false, timeZone: 'America/Sao_Paulo' };
  const plans = {
    'first page': [{}, null],
    'keyset page': [{}, cursor],
    'status, keyset page': [{ status: 'refunded' }, cursor],
    'product, keyset page': [{ produto: products[1] }, cursor],
    'e-mail search': [{ q: sample.email }, null],
    'CPF search': [{ q: sample.document }, null],
    'name search, its window floor': [{ q: 'quintanilha' }, null, 'floor'],
  };
  console.log('query plans (Vendas):');
  for (const [name, [query, at, windowed]] of Object.entries(plans)) {
    const floor = windowed ? await nameSearchFloor(db.kysely, scope, query, at) : null;
    const compiled = filteredSalesQuery(db.kysely, scope, query, at, 51, floor).compile();
    const explain = bench.postgres ? 'explain ' : 'explain query plan ';
    const result = await db.kysely.executeQuery({ ...compiled, sql: explain + compiled.sql });
    const text = result.rows.map((row) => row['QUERY PLAN'] ?? row.detail).join(' | ');
    console.log(`  ${name}: ${text}`);
  }
} finally {
  await bench.close();
}
