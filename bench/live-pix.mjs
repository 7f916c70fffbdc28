// Live Pix through the fake PSP of the tests (real mTLS, OAuth2, API Pix), in process:
//
//   npm run build -w packages/server && node bench/live-pix.mjs [creates] [payments] [dropped]
//
// 1. live create p50/p99 (POST /payments/pix with a live key → PUT /cob at the PSP), against a test
//    create in the same run (no PSP) as the baseline;
// 2. callback → merchant: from the PSP's payment (its callback POST) to the merchant's HTTPS receiver
//    getting `pix.paid`, through callback, GET /cob confirmation, pay path, outbox and delivery;
// 3. a dropped callback recovered by the reconciler on the default schedule (first check 15 s after
//    creation): from the payment to the charge reading `paid`.
//
// The fake PSP and the receiver are the tests' own (packages/server/test/support), compiled here
// with tsc into bench/.build/ so nothing is copied. Not part of CI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './lib/percentile.mjs';
import { BENCH_CHAVE as CHAVE, buildTestSupport, liveBenchStore } from './lib/test-support.mjs';

const fromSupport = buildTestSupport(['fake-psp.ts', 'https-receiver.ts']);
const { startFakePsp } = await fromSupport('fake-psp.js');
const { startHttpsReceiver } = await fromSupport('https-receiver.js');

const dist = new URL('../packages/server/dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);
const { buildApp } = await load('channels/server/app.js');
const { openPaymentProviders } = await load('channels/server/payment-providers.js');
const { loadConfig } = await load('platform/config/config.js');
const { openDatabase } = await load('platform/db/database.js');
const { migrateToLatest } = await load('platform/db/migrations/migrate.js');
const { createApiKey } = await load('platform/api-keys/api-keys.js');
const { registerWebhook } = await load('domain/payments/api-pix/provider-admin.js');
const { startConfiguredReconciler } = await load('flows/reconcile-live-pix.js');
const { startDeliveryWorker } = await load('domain/webhooks/delivery/worker.js');

const [creates = 300, payments = 100, dropped = 5] = process.argv.slice(2).map(Number);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

const dir = mkdtempSync(join(tmpdir(), 'sf-bench-live-'));
const url = `sqlite:${join(dir, 'bench.sqlite')}`;
const db = openDatabase(url);
await migrateToLatest(db.kysely);
const psp = await startFakePsp({ chave: CHAVE });
const receiver = await startHttpsReceiver({ port: 8443 });
const config = loadConfig({
  DATABASE_URL: url,
  STOREFRONT_SECRET: 'bench-secret-bench-secret-bench-secret',
  STOREFRONT_RATE_LIMIT: '1000000',
  STOREFRONT_WEBHOOK_ALLOWED_HOSTS: receiver.host,
});
const providers = openPaymentProviders(db.kysely, config);
const app = await buildApp({ config, db: db.kysely, payments: providers, logger: false });
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${app.server.address().port}`;
const worker = startDeliveryWorker({ db: db.kysely, config, log: quiet, tls: { ca: receiver.ca } });
const reconciler = startConfiguredReconciler(db.kysely, providers, config, quiet);

const store = await liveBenchStore(db.kysely, config.secret, psp, fromSupport);
await registerWebhook(db.kysely, providers, store.id, base);
const scopes = ['pix:write', 'pix:read', 'webhooks:manage'];
const live = (await createApiKey(db.kysely, { storeId: store.id, mode: 'live', scopes })).key;
const test = (await createApiKey(db.kysely, { storeId: store.id, mode: 'test', scopes })).key;

async function call(key, method, path, body) {
  const res = await globalThis.fetch(`${base}/api/public/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}
const create = (key, i) =>
  call(key, 'POST', '/payments/pix', { amount: (1000 + (i % 1000)) / 100, description: 'Bench' });

/** Live and test creates alternate, so both see the same machine load and the same table size. */
async function timedCreates(n) {
  const samples = { live: [], test: [] };
  for (let i = 0; i < n; i++) {
    for (const [mode, key] of [
      ['live', live],
      ['test', test],
    ]) {
      const started = performance.now();
      await create(key, i);
      samples[mode].push(performance.now() - started);
    }
  }
  return { live: samples.live.sort((a, b) => a - b), test: samples.test.sort((a, b) => a - b) };
}
const fmt = (sorted) =>
  `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (n=${sorted.length})`;

const waitFor = async (check, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(5);
  }
};

try {
  await timedCreates(30); // warm-up: JIT, TLS session and token, SQLite pages
  const { live: liveSamples, test: testSamples } = await timedCreates(creates);
  console.log(`live create (PUT /cob over mTLS): ${fmt(liveSamples)}`);
  console.log(`test create (baseline, no PSP):   ${fmt(testSamples)}`);
  console.log(
    `ratio live/test p50: ${(percentile(liveSamples, 50) / percentile(testSamples, 50)).toFixed(2)}`,
  );

  await call(live, 'POST', '/webhooks', { url: `${receiver.url}/hook`, events: ['pix.paid'] });
  const delivery = [];
  for (let i = 0; i < payments; i++) {
    const charge = await create(live, i);
    const seen = receiver.requests.length;
    const started = Date.now();
    await psp.pay(charge.pix.txid);
    const request = await waitFor(() =>
      receiver.requests.slice(seen).find((r) => JSON.parse(r.body).data.object.id === charge.id),
    );
    delivery.push(request.receivedAt.getTime() - started);
  }
  delivery.sort((a, b) => a - b);
  console.log(`callback → merchant pix.paid: ${fmt(delivery)}`);

  psp.dropCallbacks = true;
  const recovered = await Promise.all(
    Array.from({ length: dropped }, async (_, i) => {
      const charge = await create(live, i);
      const paidAt = Date.now();
      await psp.pay(charge.pix.txid);
      await waitFor(
        async () => (await call(live, 'GET', `/payments/pix/${charge.id}`)).status === 'paid',
        120_000,
      );
      return Date.now() - paidAt;
    }),
  );
  recovered.sort((a, b) => a - b);
  console.log(
    `dropped callback recovered by the reconciler (schedule ${config.pixReconcileScheduleMs.join(',')} ms, paid right after creation): ${fmt(recovered)}`,
  );
} finally {
  await reconciler.stop();
  await worker.stop();
  await app.close();
  await providers.close();
  await receiver.close();
  await psp.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
