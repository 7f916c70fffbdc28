// Time to create one Pix charge (BR Code + QR PNG + row + pix.created event), in process.
//
//   npm run build && node bench/pix-create.mjs [count]   (STOREFRONT_DIST=<dir>/ to use another build)
//
// Requests go through Fastify's inject (routing, auth, validation, serialization; no sockets) on a
// fresh SQLite file, so the figure is the service's own cost per charge. The QR share is measured
// apart by rendering the returned copy_paste again.
import { performance } from 'node:perf_hooks';
import { loadBuilt, openBenchStore } from './lib/in-process.mjs';
import { percentile } from './lib/percentile.mjs';

const { buildApp } = await loadBuilt('channels/server/app.js');
const { renderQrPng } = await loadBuilt('platform/brcode/index.js');

const count = Number(process.argv[2] ?? 500);
const { db, config, key, close } = await openBenchStore({ scopes: ['pix:write'] });
const app = await buildApp({ config, db: db.kysely, logger: false });

async function createOne(i) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/public/v1/payments/pix',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    payload: {
      amount: (1000 + (i % 1000)) / 100, // from whole cents: 10 + 0.29 would be 10.290000000000001
      description: 'Pão de queijo',
      customer: { document: '52998224725' },
    },
  });
  if (res.statusCode !== 201) throw new Error(`create failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

const stats = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p) => percentile(sorted, p).toFixed(2);
  return `mean ${(samples.reduce((a, b) => a + b, 0) / samples.length).toFixed(2)} ms, p50 ${at(50)} ms, p95 ${at(95)} ms`;
};

for (let i = 0; i < 50; i++) await createOne(i); // warm-up: JIT, schema compilers, SQLite pages
const create = [];
const qr = [];
let charge;
for (let i = 0; i < count; i++) {
  const start = performance.now();
  charge = await createOne(i);
  create.push(performance.now() - start);
  const qrStart = performance.now();
  await renderQrPng(charge.pix.copy_paste);
  qr.push(performance.now() - qrStart);
}

console.log(`node ${process.version}, ${count} sequential creates on SQLite`);
console.log(`create (HTTP via inject, QR included): ${stats(create)}`);
console.log(`  of which QR PNG render:             ${stats(qr)}`);
console.log(
  `stored per charge: copy_paste ${charge.pix.copy_paste.length} B, qr_code_base64 ${charge.pix.qr_code_base64.length} B`,
);

await app.close();
await close();
