// The dashboard's login and Início, measured against a baseline in the same run (bench/README.md,
// "Dashboard"):
// - login: an unknown e-mail and a wrong password must take about as long (both pay one scrypt
//   verification); the right password is the baseline (the same scrypt, plus the session write);
// - Início: server time with `--sales` sales (default 100,000) spread over 90 days, per period,
//   against GET /healthz on the same server.
//
//   npm run build -w packages/server && node bench/dashboard.mjs [--sales 100000] [--postgres]
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importServerModule } from './lib/paths.mjs';

const args = process.argv.slice(2);
const SALES = Number(args[args.indexOf('--sales') + 1] || 100_000) || 100_000;
const POSTGRES = args.includes('--postgres') ? process.env.STOREFRONT_TEST_DATABASE_URL : null;
if (args.includes('--postgres') && !POSTGRES)
  throw new Error('--postgres needs STOREFRONT_TEST_DATABASE_URL');
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';

const { openDatabase } = await importServerModule('db/database.js');
const { migrateToLatest } = await importServerModule('db/migrate.js');
const { loadConfig } = await importServerModule('config/config.js');
const { buildApp } = await importServerModule('app.js');
const { createStore } = await importServerModule('stores/stores.js');
const { createApiKey } = await importServerModule('api-keys/api-keys.js');
const { addMember } = await importServerModule('dashboard/accounts/team.js');
const { hashPassword } = await importServerModule('dashboard/accounts/passwords.js');

const dir = mkdtempSync(join(tmpdir(), 'storefront-dashboard-bench-'));
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
// Every login comes from its own address (through a trusted proxy), so no attempt is throttled.
const config = { ...loadConfig({ DATABASE_URL: url, STOREFRONT_SECRET: SECRET }), trustProxy: ['127.0.0.1'] };
const app = await buildApp({ config, db: db.kysely, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (n) => n.toFixed(1);
let client = 0;
async function timed(path, init = {}) {
  const start = process.hrtime.bigint();
  const response = await globalThis.fetch(`${base}${path}`, { redirect: 'manual', ...init });
  await response.arrayBuffer();
  return { ms: Number(process.hrtime.bigint() - start) / 1e6, response };
}
const login = (email, password) =>
  timed('/dashboard/login', {
    method: 'POST',
    headers: {
      origin: base,
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': `10.1.${(++client >> 8) & 255}.${client & 255}`,
    },
    body: new globalThis.URLSearchParams({ email, password }).toString(),
  });

try {
  const store = await createStore(db.kysely, { name: 'Loja Bench' });
  const password = 'senha-do-bench-123';
  await addMember(db.kysely, {
    storeId: store.id,
    email: 'dono@bench.example',
    role: 'owner',
    passwordHash: await hashPassword(password),
  });

  // Login: the three cases interleaved, so machine noise falls on each alike.
  const ROUNDS = 20;
  const times = { right: [], wrong: [], unknown: [] };
  for (let i = 0; i < ROUNDS; i++) {
    times.right.push((await login('dono@bench.example', password)).ms);
    times.wrong.push((await login('dono@bench.example', `errada-${i}`)).ms);
    times.unknown.push((await login(`ninguem-${i}@bench.example`, `errada-${i}`)).ms);
  }
  console.log(`login, ${ROUNDS} of each, ${POSTGRES ? 'postgres' : 'sqlite'} (ms):`);
  for (const [name, values] of Object.entries(times)) {
    console.log(`  ${name.padEnd(8)} p50 ${ms(quantile(values, 0.5))}  p95 ${ms(quantile(values, 0.95))}`);
  }
  const ratio = quantile(times.unknown, 0.5) / quantile(times.wrong, 0.5);
  console.log(`  unknown e-mail / wrong password (p50): ${ratio.toFixed(2)}x`);
  console.log(
    `  wrong password / right password (p50): ${(quantile(times.wrong, 0.5) / quantile(times.right, 0.5)).toFixed(2)}x`,
  );

  // Seed sales: clones of one real sale (paid through the API), spread over 90 days.
  const { key } = await createApiKey(db.kysely, { storeId: store.id, mode: 'test', scopes: ['pix:write'] });
  const charge = await (
    await globalThis.fetch(`${base}/api/public/v1/payments/pix`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ amount: 10, customer: { name: 'Cliente Bench', email: 'c@bench.example' } }),
    })
  ).json();
  await globalThis.fetch(`${base}/api/public/v1/payments/pix/${charge.id}/simulate_payment`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
  });
  const template = await db.kysely.selectFrom('sales').selectAll().executeTakeFirstOrThrow();
  const now = Date.now();
  const seedStart = process.hrtime.bigint();
  await db.kysely.transaction().execute(async (trx) => {
    for (let first = 0; first < SALES; first += 500) {
      const rows = [];
      for (let i = first; i < Math.min(SALES, first + 500); i++) {
        rows.push({
          ...template,
          id: randomUUID(),
          pix_charge_id: null,
          amount_cents: 1000 + (i % 97) * 100,
          status: i % 20 === 0 ? 'refunded' : 'approved',
          created_at: new Date(now - ((i * 7919) % (90 * 86_400_000))).toISOString(),
        });
      }
      await trx.insertInto('sales').values(rows).execute();
    }
  });
  if (POSTGRES) await pg.query(`analyze ${schema}.sales`);
  console.log(`seeded ${SALES} sales in ${ms(Number(process.hrtime.bigint() - seedStart) / 1e9)} s`);

  const signedIn = await login('dono@bench.example', password);
  const cookie = /sf_session=[^;]+/.exec(signedIn.response.headers.get('set-cookie'))[0];
  const PAGES = 30;
  const healthz = [];
  const pages = { hoje: [], 7: [], 30: [], 90: [] };
  for (let i = 0; i < PAGES; i++) {
    healthz.push((await timed('/healthz')).ms);
    for (const period of Object.keys(pages)) {
      const { ms: t, response } = await timed(`/dashboard?periodo=${period}`, { headers: { cookie } });
      if (response.status !== 200) throw new Error(`Início answered ${response.status}`);
      pages[period].push(t);
    }
  }
  console.log(`Início with ${SALES} sales, ${PAGES} requests each (ms, client-measured on localhost):`);
  console.log(`  /healthz baseline  p50 ${ms(quantile(healthz, 0.5))}  p95 ${ms(quantile(healthz, 0.95))}`);
  for (const [period, values] of Object.entries(pages)) {
    console.log(
      `  periodo=${period.padEnd(4)}        p50 ${ms(quantile(values, 0.5))}  p95 ${ms(quantile(values, 0.95))}` +
        `  (${(quantile(values, 0.5) / quantile(healthz, 0.5)).toFixed(1)}x baseline)`,
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
