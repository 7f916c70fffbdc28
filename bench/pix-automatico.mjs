// Live Pix Automático through the fake PSP of the tests (real mTLS, OAuth2, API Pix), in process:
//
//   npm run build -w packages/server && node bench/pix-automatico.mjs [creates]
//
// The PSP side of creating a subscription (Jornada 3: POST /locrec, PUT /cob, POST /rec,
// GET /rec?txid=, and the composite code's checks), p50/p99, against a live charge's PSP side
// (PUT /cob and its code's checks) in the same run as the baseline: alternating, same connection
// pool and token. What a subscription adds over a charge in the database is the subscriptions
// module's and is not measured here. Not part of CI.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importServerModule as load } from './lib/paths.mjs';
import { percentile } from './lib/percentile.mjs';
import { BENCH_CHAVE as CHAVE, buildTestSupport, liveBenchStore } from './lib/test-support.mjs';

const fromSupport = buildTestSupport(['fake-psp.ts']);
const { startFakePsp } = await fromSupport('fake-psp.js');

const { openDatabase } = await load('platform/db/database.js');
const { migrateToLatest } = await load('platform/db/migrations/migrate.js');
const { prefixedId, randomBase62 } = await load('platform/values/ids.js');
const { apiPixProviders } = await load('domain/payments/api-pix/api-pix-providers.js');

const [creates = 300] = process.argv.slice(2).map(Number);
const SECRET = 'bench-secret-bench-secret-bench-secret';

const dir = mkdtempSync(join(tmpdir(), 'sf-bench-rec-'));
const db = openDatabase(`sqlite:${join(dir, 'bench.sqlite')}`);
await migrateToLatest(db.kysely);
const psp = await startFakePsp({ chave: CHAVE });
const providers = apiPixProviders(db.kysely, {
  secret: SECRET,
  connectTimeoutMs: 5000,
  requestTimeoutMs: 15000,
});
const store = await liveBenchStore(db.kysely, SECRET, psp, fromSupport);
const provider = await providers.forStore(store.id);

const receiver = { pixKey: CHAVE, merchantName: 'LOJA BENCH', merchantCity: 'SAO PAULO' };
const customer = { name: 'Maria da Silva', document: '52998224725', email: 'maria@example.com' };
const charge = (i) => ({
  txid: `b${randomBase62(29)}`,
  amountCents: 1000 + (i % 1000),
  expiresIn: 3600,
  description: 'Bench',
  receiver,
  customer,
});
const operations = {
  subscription: (i) =>
    provider.createSubscriptionCharge({
      ...charge(i),
      subscriptionId: prefixedId('sub'),
      objeto: 'Assinatura Bench',
      dataInicial: new Date().toISOString().slice(0, 10),
      periodicidade: 'MENSAL',
      politicaRetentativa: 'PERMITE_3R_7D',
      // A first try: nothing held at the PSP yet, steps not kept (the service saves them in its table).
      progress: { held: { loc: null, idRec: null }, save: async () => {} },
    }),
  charge: (i) => provider.createCharge(charge(i)),
};

/** Both operations alternate, so they see the same machine load and the same PSP state size. */
async function timed(n) {
  const samples = { subscription: [], charge: [] };
  for (let i = 0; i < n; i++) {
    for (const [name, run] of Object.entries(operations)) {
      const started = performance.now();
      await run(i);
      samples[name].push(performance.now() - started);
    }
  }
  for (const list of Object.values(samples)) list.sort((a, b) => a - b);
  return samples;
}
const fmt = (sorted) =>
  `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (n=${sorted.length})`;

try {
  await timed(30); // warm-up: JIT, TLS session and token
  const { subscription, charge: charges } = await timed(creates);
  console.log(`subscription, PSP side (Jornada 3, 4 calls): ${fmt(subscription)}`);
  console.log(`live charge, PSP side (baseline, PUT /cob):  ${fmt(charges)}`);
  for (const p of [50, 99]) {
    console.log(
      `ratio subscription/charge p${p}: ${(percentile(subscription, p) / percentile(charges, p)).toFixed(2)}`,
    );
  }
} finally {
  await providers.close();
  await psp.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
}
