// The dashboard's Produtos list with 100,000 products in one store, measured against a bare baseline
// route in the same run (bench/README.md, "Dashboard: Produtos"): server time of each request
// (Fastify's reply.elapsedTime, from the request's arrival to the answer's last byte), for the
// active list's first page, a page deep in it (its keyset cursor), the archived list (2% of the
// products), Cupons, and GET /healthz as the baseline.
//
//   npm run build -w packages/server && node bench/dashboard-catalog.mjs [--products 100000] [--postgres]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importServerModule } from './lib/paths.mjs';

const args = process.argv.slice(2);
const PRODUCTS = Number(args[args.indexOf('--products') + 1] || 100_000) || 100_000;
const POSTGRES = args.includes('--postgres') ? process.env.STOREFRONT_TEST_DATABASE_URL : null;
if (args.includes('--postgres') && !POSTGRES)
  throw new Error('--postgres needs STOREFRONT_TEST_DATABASE_URL');
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const ROUNDS = 40;

const { openDatabase } = await importServerModule('db/database.js');
const { migrateToLatest } = await importServerModule('db/migrate.js');
const { loadConfig } = await importServerModule('config/config.js');
const { buildApp } = await importServerModule('app.js');
const { createStore } = await importServerModule('stores/stores.js');
const { addMember } = await importServerModule('dashboard/accounts/team.js');
const { hashPassword } = await importServerModule('dashboard/accounts/passwords.js');
const { createProduct } = await importServerModule('products/product-service.js');

const dir = mkdtempSync(join(tmpdir(), 'storefront-catalog-bench-'));
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
/** Server time of the last answer to each path (ms). */
const serverMs = new Map();
app.addHook('onResponse', async (request, reply) => {
  serverMs.set(request.url, reply.elapsedTime);
});
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (n) => n.toFixed(1);
async function timed(path, cookie) {
  const response = await globalThis.fetch(`${base}${path}`, {
    redirect: 'manual',
    headers: cookie ? { cookie } : {},
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  return { ms: serverMs.get(path), text };
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
  if (POSTGRES) await pg.query(`analyze ${schema}.products`);
  console.log(`seeded ${PRODUCTS} products in ${ms(Number(process.hrtime.bigint() - seedStart) / 1e9)} s`);

  const login = await globalThis.fetch(`${base}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new globalThis.URLSearchParams({ email: 'dono@bench.example', password }).toString(),
  });
  const cookie = /sf_session=[^;]+/.exec(login.headers.get('set-cookie'))[0];

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
  const rows = (await timed(pages['Produtos, 1st page'], cookie)).text.match(/<tr>/g).length - 1;
  if (rows !== 50) throw new Error(`the first page lists ${rows} products, not 50`);
  const times = Object.fromEntries(Object.keys(pages).map((name) => [name, []]));
  for (let i = 0; i < ROUNDS; i++) {
    // Interleaved, so machine noise falls on each alike.
    for (const [name, path] of Object.entries(pages)) times[name].push((await timed(path, cookie)).ms);
  }
  const baseline = quantile(times['/healthz (baseline)'], 0.5);
  console.log(
    `${PRODUCTS} products, ${POSTGRES ? 'postgres' : 'sqlite'}, ${ROUNDS} requests each (server ms, p50 / p95):`,
  );
  for (const [name, values] of Object.entries(times)) {
    const p50 = quantile(values, 0.5);
    console.log(
      `  ${name.padEnd(22)} ${ms(p50).padStart(6)} / ${ms(quantile(values, 0.95)).padStart(6)}` +
        `  (${(p50 / baseline).toFixed(1)}x baseline)`,
    );
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
