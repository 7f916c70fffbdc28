// Card payments: POST /payments/card against POST /payments/pix in the same run, in process:
//
//   npm run build -w packages/server && node bench/card-payments.mjs [requests]
//
// Four requests alternate, so each sees the same machine load and table sizes:
//   pix         POST /payments/pix with a test key (BR Code and QR made locally): the baseline;
//   simulated   POST /payments/card with a test key and no test PSP (tok_test_approved);
//   mercadopago POST /payments/card with a live key → POST /v1/payments at the fake Mercado Pago (HTTPS);
//   pagarme     POST /payments/card with a live key → POST /orders at the fake Pagar.me (HTTPS).
// Every card payment is approved, so each also writes its sale, events, e-mail and conversion jobs.
// The fakes are the tests' own (packages/server/test/support), compiled by tsc into bench/.build/.
// Not part of CI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { percentile } from './lib/percentile.mjs';
import { buildTestSupport } from './lib/test-support.mjs';

const fromSupport = buildTestSupport(['fake-mercadopago.ts', 'fake-pagarme.ts']);
const { startFakeMercadoPago, mpCardToken } = await fromSupport('fake-mercadopago.js');
const { startFakePagarme } = await fromSupport('fake-pagarme.js');

const dist = new URL('../packages/server/dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);
const { buildApp } = await load('channels/server/app.js');
const { openPaymentProviders } = await load('channels/server/payment-providers.js');
const { loadConfig } = await load('platform/config/config.js');
const { openDatabase } = await load('platform/db/database.js');
const { migrateToLatest } = await load('platform/db/migrations/migrate.js');
const { createApiKey } = await load('platform/api-keys/api-keys.js');
const { createStore } = await load('flows/create-store.js');
const { createSecretBox } = await load('platform/values/secret-box.js');
const { saveCardProviderSettings } = await load('domain/payments/card-settings/card-provider-settings.js');

const [requests = 300] = process.argv.slice(2).map(Number);

const dir = mkdtempSync(join(tmpdir(), 'sf-bench-cards-'));
const url = `sqlite:${join(dir, 'bench.sqlite')}`;
const db = openDatabase(url);
await migrateToLatest(db.kysely);
const mp = await startFakeMercadoPago();
const pagarme = await startFakePagarme({ secretKey: 'sk_benchbenchbench01' });
const config = loadConfig({
  DATABASE_URL: url,
  STOREFRONT_SECRET: 'bench-secret-bench-secret-bench-secret',
  STOREFRONT_RATE_LIMIT: '1000000',
  STOREFRONT_PSP_ALLOWED_HOSTS: `${mp.host},${pagarme.host}`,
});
const providers = openPaymentProviders(db.kysely, config);
const app = await buildApp({ config, db: db.kysely, payments: providers, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;
const box = createSecretBox(config.secret);
const scopes = ['pix:write', 'cards:write', 'cards:read'];

async function storeWith(name, psp) {
  const store = await createStore(db.kysely, { name, pixKey: 'bench@example.com' });
  if (psp) await saveCardProviderSettings(db.kysely, box, { storeId: store.id, livemode: true, ...psp });
  const mode = psp ? 'live' : 'test';
  return (await createApiKey(db.kysely, { storeId: store.id, mode, scopes })).key;
}
const keys = {
  test: await storeWith('Loja Teste'),
  mercadopago: await storeWith('Loja MP', {
    provider: 'mercadopago',
    secret: mp.accessToken,
    publicKey: mp.publicKey,
    webhookSecret: null,
    baseUrl: mp.baseUrl,
    caPem: mp.caPem,
  }),
  pagarme: await storeWith('Loja Pagarme', {
    provider: 'pagarme',
    secret: pagarme.secretKey,
    publicKey: pagarme.publicKey,
    webhookSecret: null,
    baseUrl: pagarme.baseUrl,
    caPem: pagarme.caPem,
  }),
};

let sequence = 0;
async function call(key, path, body) {
  const res = await globalThis.fetch(`${base}/api/public/v1${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      'idempotency-key': `bench-${++sequence}`,
    },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
const customer = { name: 'Ana Souza', email: 'ana@example.com', document: '52998224725' };
const card = (token) => ({ amount: 997, installments: 3, customer, card: { token, brand: 'visa' } });
const scenarios = {
  pix: () => call(keys.test, '/payments/pix', { amount: 997, description: 'Bench' }),
  simulated: () => call(keys.test, '/payments/card', card('tok_test_approved')),
  mercadopago: () => call(keys.mercadopago, '/payments/card', card(mpCardToken('approved'))),
  pagarme: () => call(keys.pagarme, '/payments/card', card(pagarme.issueToken('approved'))),
};

async function timed(n) {
  const samples = Object.fromEntries(Object.keys(scenarios).map((name) => [name, []]));
  for (let i = 0; i < n; i++) {
    for (const [name, run] of Object.entries(scenarios)) {
      const started = performance.now();
      const answer = await run();
      samples[name].push(performance.now() - started);
      if (name !== 'pix' && answer.status !== 'approved') throw new Error(`${name}: ${answer.status}`);
    }
  }
  for (const list of Object.values(samples)) list.sort((a, b) => a - b);
  return samples;
}

try {
  await timed(30); // warm-up: JIT, TLS sessions, SQLite pages
  const samples = await timed(requests);
  const pixP50 = percentile(samples.pix, 50);
  console.log(`| request | p50 ms | p99 ms | p50 ÷ pix p50 |`);
  console.log(`| ------- | -----: | -----: | ------------: |`);
  for (const [name, sorted] of Object.entries(samples)) {
    const p50 = percentile(sorted, 50);
    console.log(
      `| ${name} | ${p50.toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ${(p50 / pixP50).toFixed(2)} |`,
    );
  }
  console.log(`n=${requests} each, alternating, one process, SQLite`);
} finally {
  await app.close();
  await providers.close();
  await mp.close();
  await pagarme.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
