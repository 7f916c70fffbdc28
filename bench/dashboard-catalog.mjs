// The dashboard's Produtos list with 100,000 products in one store, measured against a bare baseline
// route in the same run (bench/README.md, "Dashboard: Produtos"): server time of each request
// (Fastify's reply.elapsedTime, from the request's arrival to the answer's last byte), for the
// active list's first page, a page deep in it (its keyset cursor), the archived list (2% of the
// products), Cupons, and GET /healthz as the baseline.
//
//   npm run build -w packages/server && node bench/dashboard-catalog.mjs [--products 100000] [--postgres]
import { randomUUID } from 'node:crypto';
import { startDashboardBench } from './lib/dashboard-bench.mjs';
import { importServerModule } from './lib/paths.mjs';
import { percentileOf } from './lib/percentile.mjs';

const ROUNDS = 40;
const { createProduct } = await importServerModule('domain/catalogue/product-service.js');

const bench = await startDashboardBench({ size: { name: 'products', fallback: 100_000 } });
const { db, store } = bench;
const PRODUCTS = bench.size;
const ms = (n) => n.toFixed(1);

try {
  // Seed: clones of one real product (made by the product service), one a minute back from now; 2% archived.
  const template = await createProduct(
    db.kysely,
    { storeId: store.id, livemode: false },
    { nome: 'Modelo', preco: 10 },
  );
  const row = await db.kysely
    .selectFrom('products')
    .selectAll()
    .where('id', '=', template.id)
    .executeTakeFirstOrThrow();
  const now = Date.now();
  const seedStart = process.hrtime.bigint();
  await db.kysely.transaction().execute(async (trx) => {
    for (let first = 0; first < PRODUCTS; first += 500) {
      const rows = [];
      for (let i = first; i < Math.min(PRODUCTS, first + 500); i++) {
        const at = new Date(now - (i + 1) * 60_000).toISOString();
        rows.push({
          ...row,
          id: randomUUID(),
          codigo: `PRD-B${String(i).padStart(7, '0')}`,
          slug: `produto-${i}`,
          nome: `Produto ${i}`,
          preco_cents: 1000 + (i % 97) * 100,
          ativo: i % 50 === 7 ? 0 : 1,
          created_at: at,
          updated_at: at,
        });
      }
      await trx.insertInto('products').values(rows).execute();
    }
  });
  if (bench.postgres) await bench.analyze('products');
  console.log(`seeded ${PRODUCTS} products in ${ms(Number(process.hrtime.bigint() - seedStart) / 1e9)} s`);

  const cookie = await bench.signInOwner();

  // A cursor half-way down the active list: the page a merchant reaches after 1,000 "Mais antigos".
  const middle = await db.kysely
    .selectFrom('products')
    .select(['created_at', 'id'])
    .where('store_id', '=', store.id)
    .where('ativo', '=', 1)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(Math.floor(PRODUCTS / 2))
    .limit(1)
    .executeTakeFirstOrThrow();
  const pages = {
    '/healthz (baseline)': '/healthz',
    'Produtos, 1st page': '/dashboard/produtos',
    'Produtos, deep page': `/dashboard/produtos?antes=${encodeURIComponent(`${middle.created_at}~${middle.id}`)}`,
    'Produtos arquivados': '/dashboard/produtos?status=arquivados',
    Cupons: '/dashboard/cupons',
  };
  const rows = (await bench.timed(pages['Produtos, 1st page'], { cookie })).text.match(/<tr>/g).length - 1;
  if (rows !== 50) throw new Error(`the first page lists ${rows} products, not 50`);
  const times = Object.fromEntries(Object.keys(pages).map((name) => [name, []]));
  for (let i = 0; i < ROUNDS; i++) {
    // Interleaved, so machine noise falls on each alike.
    for (const [name, path] of Object.entries(pages))
      times[name].push((await bench.timed(path, { cookie })).serverMs);
  }
  const baseline = percentileOf(times['/healthz (baseline)'], 50);
  console.log(`${PRODUCTS} products, ${bench.dbName}, ${ROUNDS} requests each (server ms, p50 / p95):`);
  for (const [name, values] of Object.entries(times)) {
    const p50 = percentileOf(values, 50);
    console.log(
      `  ${name.padEnd(22)} ${ms(p50).padStart(6)} / ${ms(percentileOf(values, 95)).padStart(6)}` +
        `  (${(p50 / baseline).toFixed(1)}x baseline)`,
    );
  }
} finally {
  await bench.close();
}
