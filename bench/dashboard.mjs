// The dashboard's login and Início, measured against a baseline in the same run (bench/README.md,
// "Dashboard"):
// - login: an unknown e-mail and a wrong password must take about as long (both pay one scrypt
//   verification); the right password is the baseline (the same scrypt, plus the session write);
// - Início: server time with `--sales` sales (default 100,000) spread over 90 days, per period,
//   against GET /healthz on the same server.
//
//   npm run build -w packages/server && node bench/dashboard.mjs [--sales 100000] [--postgres]
import { randomUUID } from 'node:crypto';
import { startDashboardBench } from './lib/dashboard-bench.mjs';
import { percentileOf } from './lib/percentile.mjs';

// Every login comes from its own address (through a trusted proxy), so no attempt is throttled.
const bench = await startDashboardBench({
  size: { name: 'sales', fallback: 100_000 },
  config: { trustProxy: ['127.0.0.1'] },
});
const { db } = bench;
const SALES = bench.size;
const ms = (n) => n.toFixed(1);
let client = 0;
const fromNextClient = () => ({ 'x-forwarded-for': `10.1.${(++client >> 8) & 255}.${client & 255}` });
// Client-measured: the time `fetch` waits on localhost.
const login = async (email, password) => (await bench.login(email, password, fromNextClient())).clientMs;

try {
  const { email, password } = bench.owner;
  // Login: the three cases interleaved, so machine noise falls on each alike.
  const ROUNDS = 20;
  const times = { right: [], wrong: [], unknown: [] };
  for (let i = 0; i < ROUNDS; i++) {
    times.right.push(await login(email, password));
    times.wrong.push(await login(email, `errada-${i}`));
    times.unknown.push(await login(`ninguem-${i}@bench.example`, `errada-${i}`));
  }
  console.log(`login, ${ROUNDS} of each, ${bench.dbName} (ms):`);
  for (const [name, values] of Object.entries(times)) {
    console.log(
      `  ${name.padEnd(8)} p50 ${ms(percentileOf(values, 50))}  p95 ${ms(percentileOf(values, 95))}`,
    );
  }
  const ratio = percentileOf(times.unknown, 50) / percentileOf(times.wrong, 50);
  console.log(`  unknown e-mail / wrong password (p50): ${ratio.toFixed(2)}x`);
  console.log(
    `  wrong password / right password (p50): ${(percentileOf(times.wrong, 50) / percentileOf(times.right, 50)).toFixed(2)}x`,
  );

  // Seed sales: clones of one real sale (paid through the API), spread over 90 days.
  const api = await bench.apiClient(['pix:write']);
  const charge = await api('/payments/pix', {
    amount: 10,
    customer: { name: 'Cliente Bench', email: 'c@bench.example' },
  });
  await api(`/payments/pix/${charge.id}/simulate_payment`);
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
  if (bench.postgres) await bench.analyze('sales');
  console.log(`seeded ${SALES} sales in ${ms(Number(process.hrtime.bigint() - seedStart) / 1e9)} s`);

  const cookie = await bench.signInOwner(fromNextClient());
  const PAGES = 30;
  const healthz = [];
  const pages = { hoje: [], 7: [], 30: [], 90: [] };
  for (let i = 0; i < PAGES; i++) {
    healthz.push((await bench.send('/healthz')).clientMs);
    for (const period of Object.keys(pages)) {
      pages[period].push((await bench.timed(`/dashboard?periodo=${period}`, { cookie })).clientMs);
    }
  }
  console.log(`Início with ${SALES} sales, ${PAGES} requests each (ms, client-measured on localhost):`);
  console.log(
    `  /healthz baseline  p50 ${ms(percentileOf(healthz, 50))}  p95 ${ms(percentileOf(healthz, 95))}`,
  );
  for (const [period, values] of Object.entries(pages)) {
    console.log(
      `  periodo=${period.padEnd(4)}        p50 ${ms(percentileOf(values, 50))}  p95 ${ms(percentileOf(values, 95))}` +
        `  (${(percentileOf(values, 50) / percentileOf(healthz, 50)).toFixed(1)}x baseline)`,
    );
  }
} finally {
  await bench.close();
}
