// Subscription cycle scheduler benchmark: `storefront subscriptions run-cycles` over a store's active
// subscriptions all due at once, run by TWO schedulers (two CLI processes) at the same time, against
// a baseline in the same run: the bare database work a cycle needs (one cycle row inserted, one
// subscription row updated), done as plain batched SQL by one process. It also checks that no cycle
// was billed twice: the two reports together name every subscription exactly once, and the database
// holds exactly one cycle charge per subscription.
//
//   npm run build -w packages/server && node bench/subscription-cycles.mjs [--subscriptions 100000]
//   STOREFRONT_TEST_DATABASE_URL=postgres://… node bench/subscription-cycles.mjs --db postgres
//
// Opt-in, not part of `npm run bench` or CI.
import { execFile } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { placeFor } from './lib/database.mjs';
import { seedProducts } from './lib/seed.mjs';
import { importServerModule, serverBin } from './lib/paths.mjs';

const run = promisify(execFile);
const { values: opts } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    subscriptions: { type: 'string', default: '100000' },
  },
});
const COUNT = Number(opts.subscriptions);
const BATCH = 1000;
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';

const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL;
if (opts.db === 'postgres' && !pgUrl) throw new Error('--db postgres needs STOREFRONT_TEST_DATABASE_URL');
const place = await placeFor(opts.db, pgUrl);
const { openDatabase } = await importServerModule('platform/db/database.js');
const { migrateToLatest } = await importServerModule('platform/db/migrations/migrate.js');
const { createStore } = await importServerModule('flows/create-store.js');
const { prefixedId } = await importServerModule('platform/values/ids.js');
const { addDays, localDate } = await importServerModule('platform/values/local-date.js');
const { periodBound } = await importServerModule('domain/subscriptions/periods.js');

const db = openDatabase(place.databaseUrl, place.openOptions);
try {
  await migrateToLatest(db.kysely);
  const store = await createStore(db.kysely, { name: 'Clube de Carga' });
  const today = localDate(new Date(), store.timezone);
  const due = periodBound(today, 'mensal', 1);
  const asOf = addDays(due, -5);
  // A product of the bench's seed, made recurring.
  const [productId] = await seedProducts(db, store.id, 1);
  await db.kysely.updateTable('products').set({ recorrencia: 'mensal', preco_cents: 4990 }).execute();

  // Active subscriptions, as an activation leaves them: cycle 1 paid, the next one due in a month.
  const seedStart = performance.now();
  const customer = JSON.stringify({ name: 'Ana Souza', document: '52998224725' });
  for (let done = 0; done < COUNT; done += BATCH) {
    const rows = [];
    for (let i = done; i < Math.min(COUNT, done + BATCH); i++) {
      rows.push({
        id: prefixedId('sub'),
        store_id: store.id,
        livemode: 0,
        status: 'active',
        product_id: productId,
        customer,
        tracking: null,
        amount_cents: 4990,
        recorrencia: 'mensal',
        retry_policy: '3_in_7_days',
        anchor_date: today,
        cycle: 1,
        current_period_start: today,
        current_period_end: due,
        next_charge_date: due,
        cancel_reason: null,
        canceled_at: null,
        order_id: null,
        first_charge_id: prefixedId('pix'),
        id_rec: `RR00000000${today.replace(/-/g, '')}${String(i).padStart(11, '0')}`,
        next_action_date: asOf,
        claimed_until: null,
        next_check_at: null,
        created_at: new Date().toISOString(),
      });
    }
    await db.kysely.transaction().execute((trx) => trx.insertInto('subscriptions').values(rows).execute());
  }
  const seedSeconds = (performance.now() - seedStart) / 1000;

  // Baseline: the same rows of work as plain batched SQL (a scratch copy of the cycles table).
  await db.kysely.schema
    .createTable('bench_cycles')
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('cycle', 'integer', (c) => c.notNull())
    .addColumn('txid', 'text', (c) => c.notNull())
    .addColumn('due_date', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .execute();
  await db.kysely.schema
    .createIndex('bench_cycles_once')
    .on('bench_cycles')
    .columns(['subscription_id', 'cycle'])
    .unique()
    .execute();
  const baselineStart = performance.now();
  let lastId = '';
  for (;;) {
    const ids = await db.kysely
      .selectFrom('subscriptions')
      .select('id')
      .where('id', '>', lastId)
      .orderBy('id')
      .limit(BATCH)
      .execute();
    if (ids.length === 0) break;
    lastId = ids.at(-1).id;
    await db.kysely.transaction().execute(async (trx) => {
      await trx
        .insertInto('bench_cycles')
        .values(
          ids.map(({ id }) => ({
            subscription_id: id,
            cycle: 2,
            txid: id,
            due_date: due,
            status: 'scheduled',
          })),
        )
        .execute();
      await trx
        .updateTable('subscriptions')
        .set({ claimed_until: null })
        .where(
          'id',
          'in',
          ids.map(({ id }) => id),
        )
        .execute();
    });
  }
  const baselineSeconds = (performance.now() - baselineStart) / 1000;

  // Two schedulers at once, as two nodes' workers would run them.
  const env = {
    ...process.env,
    DATABASE_URL: place.databaseUrl,
    STOREFRONT_SECRET: SECRET,
    ...place.serverEnv,
  };
  const cli = () =>
    run(process.execPath, [serverBin, 'subscriptions', 'run-cycles', '--as-of', asOf, '--json'], {
      env,
      maxBuffer: 256 * 1024 * 1024,
    }).then(({ stdout }) => JSON.parse(stdout));
  const runStart = performance.now();
  const [a, b] = await Promise.all([cli(), cli()]);
  const runSeconds = (performance.now() - runStart) / 1000;

  const sent = [...a.charges_sent, ...b.charges_sent].map((c) => c.subscription_id);
  const distinctSent = new Set(sent).size;
  const stored = await db.kysely
    .selectFrom('subscription_cycles')
    .select((eb) => [eb.fn.countAll().as('rows'), eb.fn.count('subscription_id').distinct().as('subs')])
    .executeTakeFirstOrThrow();
  const result = {
    database: opts.db,
    subscriptions: COUNT,
    cpus: os.cpus().length,
    seed_seconds: Number(seedSeconds.toFixed(1)),
    baseline_seconds: Number(baselineSeconds.toFixed(2)),
    run_cycles_seconds: Number(runSeconds.toFixed(2)),
    ratio_to_baseline: Number((runSeconds / baselineSeconds).toFixed(1)),
    subscriptions_per_second: Math.round(COUNT / runSeconds),
    scheduler_a_sent: a.charges_sent.length,
    scheduler_b_sent: b.charges_sent.length,
    reported_twice: sent.length - distinctSent,
    cycle_rows: Number(stored.rows),
    subscriptions_with_a_cycle: Number(stored.subs),
    failed: a.failed.length + b.failed.length,
  };
  console.log(JSON.stringify(result, null, 2));
  const ok =
    distinctSent === COUNT &&
    sent.length === COUNT &&
    result.cycle_rows === COUNT &&
    result.subscriptions_with_a_cycle === COUNT;
  console.log(ok ? 'every cycle billed exactly once' : 'CYCLES BILLED WRONGLY');
  if (!ok) process.exitCode = 1;
} finally {
  await db.close();
  await place.cleanup();
}
