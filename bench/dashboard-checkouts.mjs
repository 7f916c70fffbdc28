// The dashboard's Checkouts pages against the public purchase page they preview, in the same run
// (bench/README.md, "Dashboard Checkouts"): the list (first page of `--checkouts` checkouts), a
// checkout's editor, its saved preview (GET) and an unsaved preview (the editor's POST), each as
// p50/p95 ms and as a ratio of the public page's p50 (GET /p/<handle>/<slug>, the same renderer).
//
//   npm run build -w packages/server && node bench/dashboard-checkouts.mjs [--checkouts 1000] [--postgres]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importServerModule } from './lib/paths.mjs';

const args = process.argv.slice(2);
const CHECKOUTS = Number(args[args.indexOf('--checkouts') + 1] || 1000) || 1000;
const POSTGRES = args.includes('--postgres') ? process.env.STOREFRONT_TEST_DATABASE_URL : null;
if (args.includes('--postgres') && !POSTGRES)
  throw new Error('--postgres needs STOREFRONT_TEST_DATABASE_URL');
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const ROUNDS = 200;

const { openDatabase } = await importServerModule('db/database.js');
const { migrateToLatest } = await importServerModule('db/migrate.js');
const { loadConfig } = await importServerModule('config/config.js');
const { buildApp } = await importServerModule('app.js');
const { createStore } = await importServerModule('stores/stores.js');
const { createApiKey } = await importServerModule('api-keys/api-keys.js');
const { addMember } = await importServerModule('dashboard/accounts/team.js');
const { hashPassword } = await importServerModule('dashboard/accounts/passwords.js');

const dir = mkdtempSync(join(tmpdir(), 'storefront-checkouts-bench-'));
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
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (n) => n.toFixed(2);
async function timed(path, init = {}) {
  const start = process.hrtime.bigint();
  const response = await globalThis.fetch(`${base}${path}`, { redirect: 'manual', ...init });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, text };
}

try {
  const store = await createStore(db.kysely, { name: 'Loja Bench' });
  const { key } = await createApiKey(db.kysely, {
    storeId: store.id,
    mode: 'test',
    scopes: ['checkouts:write', 'products:write'],
  });
  const api = (path, body) =>
    globalThis
      .fetch(`${base}/api/public/v1${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      .then((r) => r.json());
  let checkout;
  for (let i = 0; i < CHECKOUTS; i++) {
    checkout = await api('/checkouts', {
      name: `Checkout ${i}`,
      settings_json: { checkout_titulo: `Oferta ${i}`, checkout_descricao: 'Descrição '.repeat(20) },
    });
  }
  const product = await api('/products', { nome: 'Curso Bench', preco: 97, checkout_id: checkout.id });
  const publicPage = `/p/${store.handle}/${product.slug}`;

  const password = 'senha-do-bench-123';
  await addMember(db.kysely, {
    storeId: store.id,
    email: 'dono@bench.example',
    role: 'owner',
    passwordHash: await hashPassword(password),
  });
  const signedIn = await globalThis.fetch(`${base}/dashboard/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin: base, 'content-type': 'application/x-www-form-urlencoded' },
    body: new globalThis.URLSearchParams({ email: 'dono@bench.example', password }).toString(),
  });
  const cookie = /sf_session=[^;]+/.exec(signedIn.headers.get('set-cookie'))[0];
  const editor = `/dashboard/checkouts/${checkout.id}`;
  const csrf = /name="_csrf" value="([^"]+)"/.exec((await timed(editor, { headers: { cookie } })).text)[1];
  const form = new globalThis.URLSearchParams({
    _csrf: csrf,
    name: 'Checkout rascunho',
    checkout_titulo: 'Título não salvo',
    checkout_garantia: 'Garantia de 7 dias',
    checkout_fundo_tipo: 'gradiente',
    checkout_fundo_cor: '#336699',
    checkout_selos_enabled: 'on',
  }).toString();

  const cases = {
    'public page (baseline)': () => timed(publicPage),
    'list (first 50)': () => timed('/dashboard/checkouts', { headers: { cookie } }),
    editor: () => timed(editor, { headers: { cookie } }),
    'preview, saved (GET)': () => timed(`${editor}/pre-visualizacao`, { headers: { cookie } }),
    'preview, unsaved (POST)': () =>
      timed(`${editor}/pre-visualizacao`, {
        method: 'POST',
        headers: { cookie, origin: base, 'content-type': 'application/x-www-form-urlencoded' },
        body: form,
      }),
  };
  const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  // Warm-up, then the cases interleaved so machine noise falls on each alike.
  for (let i = 0; i < 20; i++) for (const run of Object.values(cases)) await run();
  for (let i = 0; i < ROUNDS; i++) {
    for (const [name, run] of Object.entries(cases)) times[name].push((await run()).ms);
  }
  const baseline = quantile(times['public page (baseline)'], 0.5);
  console.log(
    `Checkouts pages, ${CHECKOUTS} checkouts, ${ROUNDS} requests each, ${POSTGRES ? 'postgres' : 'sqlite'} (ms, client-measured on localhost):`,
  );
  for (const [name, values] of Object.entries(times)) {
    const p50 = quantile(values, 0.5);
    console.log(
      `  ${name.padEnd(24)} p50 ${ms(p50).padStart(6)}  p95 ${ms(quantile(values, 0.95)).padStart(6)}  (${(p50 / baseline).toFixed(2)}x)`,
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
