import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importServerModule as load } from './lib/paths.mjs';
import { percentile } from './lib/percentile.mjs';
import { BENCH_CHAVE as CHAVE, buildTestSupport, liveBenchStore } from './lib/test-support.mjs';

const fromSupport = buildTestSupport(['fake-psp.ts']);
const { startFakePsp } = await fromSupport('fake-psp.js');
const { buildApp } = await load('channels/server/app.js');
const { loadConfig } = await load('platform/config/config.js');
const { openDatabase } = await load('platform/db/database.js');
const { migrateToLatest } = await load('platform/db/migrations/migrate.js');
const { createApiKey } = await load('platform/api-keys/api-keys.js');

const [n = 200] = process.argv.slice(2).map(Number);
const dir = mkdtempSync(join(tmpdir(), 'sf-bench-sub-'));
const url = `sqlite:${join(dir, 'bench.sqlite')}`;
const db = openDatabase(url);
await migrateToLatest(db.kysely);
const psp = await startFakePsp({ chave: CHAVE });
const config = loadConfig({
  DATABASE_URL: url,
  STOREFRONT_SECRET: 'bench-secret-bench-secret-bench-secret',
  STOREFRONT_RATE_LIMIT: '1000000',
});
const app = await buildApp({ config, db: db.kysely, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;
const store = await liveBenchStore(db.kysely, config.secret, psp, fromSupport);
const live = (
  await createApiKey(db.kysely, {
    storeId: store.id,
    mode: 'live',
    scopes: [
      'pix:write',
      'pix:read',
      'products:write',
      'products:read',
      'subscriptions:write',
      'subscriptions:read',
    ],
  })
).key;
async function call(method, path, body) {
  const res = await globalThis.fetch(`${base}/api/public/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${live}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
const product = await call('POST', '/products', { nome: 'Clube Bench', preco: 49.9, recorrencia: 'mensal' });
const customer = { name: 'Ana Souza', email: 'ana@example.com', document: '52998224725' };
const ops = {
  subscription: () => call('POST', '/subscriptions', { product_id: product.id, customer }),
  charge: () => call('POST', '/payments/pix', { amount: 49.9, customer }),
};
async function timed(k) {
  const s = { subscription: [], charge: [] };
  for (let i = 0; i < k; i++)
    for (const [name, op] of Object.entries(ops)) {
      const t = performance.now();
      await op();
      s[name].push(performance.now() - t);
    }
  for (const v of Object.values(s)) v.sort((a, b) => a - b);
  return s;
}
const fmt = (v) =>
  `p50 ${percentile(v, 50).toFixed(1)} ms, p99 ${percentile(v, 99).toFixed(1)} ms (n=${v.length})`;
try {
  await timed(20);
  const s = await timed(n);
  console.log(`live POST /subscriptions: ${fmt(s.subscription)}`);
  console.log(`live POST /payments/pix (baseline): ${fmt(s.charge)}`);
  console.log(
    `ratio p50 ${(percentile(s.subscription, 50) / percentile(s.charge, 50)).toFixed(2)}, p99 ${(percentile(s.subscription, 99) / percentile(s.charge, 99)).toFixed(2)}`,
  );
} finally {
  await app.close();
  await psp.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
