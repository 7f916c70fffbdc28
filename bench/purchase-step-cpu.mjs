// Where a purchase's CPU goes, step by step: each step of `--count` purchases is made in bulk (all
// the page GETs, then all the orders, …, `--concurrency` at a time), the worker drained after each,
// and the server's CPU for that bulk divided by the count; the bare baseline answers the same
// requests the same way. Passes repeat the whole thing; the last is printed (the first ones warm
// V8 up on both sides).
//
//   npm run build -w packages/server && node bench/purchase-step-cpu.mjs [--only page,api] [--count 1000]
import { parseArgs } from 'node:util';
import { processCpuNs } from './lib/proc-stats.mjs';
import { PURCHASE_KINDS, bulk, httpPool, purchaseOnce } from './lib/purchase-steps.mjs';
import { startStepServer } from './lib/step-server.mjs';
import { startBaseline } from './lib/servers.mjs';
import { textTable } from './lib/table.mjs';

const { values } = parseArgs({
  options: {
    only: { type: 'string', default: 'page,api' },
    count: { type: 'string', default: '1000' },
    passes: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '4' },
    db: { type: 'string', default: 'sqlite' },
    server: { type: 'string' },
  },
});
const count = Number(values.count);
const concurrency = Number(values.concurrency);
const passes = Math.max(1, Number(values.passes));
const kinds = values.only.split(',').map((kind) => kind.trim());
for (const kind of kinds) if (!PURCHASE_KINDS[kind]) throw new Error(`unknown purchase kind ${kind}`);
const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL || null;
if (values.db === 'postgres' && !pgUrl) throw new Error('--db postgres needs STOREFRONT_TEST_DATABASE_URL');

/** CPU µs per request of `run()`, for the process `pid`, once `drained()` says its work is done. */
async function cpuPerRequest(pid, run, drained) {
  await drained();
  const before = processCpuNs(pid);
  await run();
  await drained();
  return Math.round((processCpuNs(pid) - before) / 1000 / count);
}

const bench = await startStepServer({ db: values.db, pgUrl, concurrency, serverBin: values.server ?? null });
const { server, pool, ctx, drained } = bench;
const baseline = await startBaseline({ logDir: bench.database.dir });
const basePool = httpPool(baseline.url, concurrency);
const rows = [];
try {
  for (const kind of kinds) {
    const { steps } = PURCHASE_KINDS[kind];
    const sample = await purchaseOnce(pool, kind, ctx);
    for (let pass = 1; pass <= passes; pass++) {
      const states = Array.from({ length: count }, () => ({}));
      for (const [s, step] of steps.entries()) {
        const serverUs = await cpuPerRequest(server.pid, () => bench.runStep(states, step), drained);
        // The baseline's path is `/<status>/<bytes>` of the sample's answer; the rest as sent.
        const baseRequest = () => ({
          ...step.request(ctx, { orderPath: '/p/o/x', chargeId: 'pix_x' }),
          path: `/${sample[s].status}/${sample[s].bytes}`,
        });
        const baseUs = await cpuPerRequest(
          baseline.pid,
          () =>
            bulk(
              basePool,
              states.map(() => baseRequest),
              concurrency,
            ),
          async () => undefined,
        );
        if (pass === passes)
          rows.push({ kind, step: step.name, serverUs, baseUs, ratio: (serverUs / baseUs).toFixed(1) });
      }
    }
  }
} finally {
  await basePool.close();
  await baseline.stop();
  await bench.close();
}
console.log(
  `${count} of each step, ${concurrency} at a time, pass ${passes} of ${passes} (${values.db}); ` +
    'CPU µs per request, the worker drained after each step',
);
console.log(
  textTable(rows, [
    ['kind', (r) => r.kind],
    ['step', (r) => r.step],
    ['server µs', (r) => r.serverUs],
    ['base µs', (r) => r.baseUs],
    ['ratio', (r) => `${r.ratio}×`],
  ]),
);
