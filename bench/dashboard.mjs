// The dashboard's login and Início, measured against a baseline in the same run (bench/README.md,
// "Dashboard"):
// - login: an unknown e-mail and a wrong password must take about as long (both pay one scrypt
//   verification); the right password is the baseline (the same scrypt, plus the session write);
// - Início: server time with `--sales` sales (default 100,000) spread over a year, per period,
//   against GET /healthz on the same server.
//
//   npm run build -w packages/server && node bench/dashboard.mjs [--sales 100000] [--postgres]
import { startDashboardBench } from './lib/dashboard-bench.mjs';
import { seedSales } from './lib/dashboard-seed.mjs';
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

  // Seed sales over the last year (bench/lib/dashboard-seed.mjs).
  const api = await bench.apiClient(['products:write']);
  for (const nome of ['Curso de Violão', 'E-book de Receitas', 'Mentoria'])
    await api('/products', { nome, preco: 10 });
  const seedStart = process.hrtime.bigint();
  await seedSales(db.kysely, { storeId: bench.store.id, count: SALES });
  if (bench.postgres)
    for (const table of ['sales', 'card_payments', 'analytics_daily']) await bench.analyze(table);
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
