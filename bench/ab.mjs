// In-process A/B of server builds: CPU time per request through fastify.inject, no sockets, no load
// generator competing for the cores. Each build runs in child processes of its own, in alternating
// rounds, so a machine busy with other work disturbs both sides alike (bench/README.md, "A/B").
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { withPgClient } from './lib/database.mjs';
import { percentile } from './lib/percentile.mjs';
import { SCENARIOS } from './lib/scenarios.mjs';
import { seedProducts } from './lib/seed.mjs';

const USAGE = `node bench/ab.mjs [--build A=<dist> --build B=<dist>] [--only a,b] [--db sqlite|postgres]
                      [--rounds 3] [--requests 2000] [--warmup 500] [--concurrency 50] [--seed 5000]

  --build        name=<path to a packages/server/dist folder>; repeatable (default: this worktree's dist)
  --only         scenarios (bench/README.md): product-get, product-list, product-create, pix-create, ...
  --db           sqlite (default) or postgres (needs STOREFRONT_TEST_DATABASE_URL)
  --rounds       rounds per build, the order of the builds alternating from round to round
  --requests     measured requests per round, after --warmup unmeasured ones
  --concurrency  requests in flight at once
  --seed         products seeded before measuring`;

const { values } = parseArgs({
  options: {
    build: { type: 'string', multiple: true },
    only: { type: 'string', default: 'product-get,product-list,product-create,pix-create' },
    db: { type: 'string', default: 'sqlite' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '2000' },
    warmup: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '50' },
    seed: { type: 'string', default: '5000' },
    child: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

const numbers = {
  requests: Number(values.requests),
  warmup: Number(values.warmup),
  concurrency: Number(values.concurrency),
  seed: Number(values.seed),
};

/** One build, one scenario, one database of its own: prints `{ cpuUsPerRequest, statuses }`. */
async function child(dist, scenarioName) {
  const load = (path) => import(pathToFileURL(join(dist, path)).href);
  const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL;
  const dir = mkdtempSync(join(tmpdir(), 'storefront-ab-'));
  const schema = `ab_${randomBytes(6).toString('hex')}`;
  if (values.db === 'postgres') {
    await withPgClient(pgUrl, (c) => c.query(`CREATE SCHEMA ${schema}`));
    process.env.PGOPTIONS = `-c search_path=${schema}`;
  }
  const databaseUrl = values.db === 'postgres' ? pgUrl : `sqlite:${join(dir, 'storefront.sqlite')}`;
  try {
    const { openDatabase } = await load('platform/db/database.js');
    const { migrateToLatest } = await load('platform/db/migrations/migrate.js');
    const { createStore } = await load('flows/create-store.js');
    const { createApiKey } = await load('platform/api-keys/api-keys.js');
    const { SCOPES } = await load('platform/api-keys/scopes.js');
    const { loadConfig } = await load('platform/config/config.js');
    const { startService } = await load('channels/server/service.js');
    const setup = openDatabase(databaseUrl);
    await migrateToLatest(setup.kysely);
    const store = await createStore(setup.kysely, { name: 'Loja de Carga' });
    const key = await createApiKey(setup.kysely, { storeId: store.id, mode: 'test', scopes: [...SCOPES] });
    const productIds = await seedProducts(setup, store.id, numbers.seed);
    await setup.close();

    const config = loadConfig({
      DATABASE_URL: databaseUrl,
      STOREFRONT_SECRET: randomBytes(32).toString('base64url'),
      HOST: '127.0.0.1',
      PORT: '0',
      STOREFRONT_RATE_LIMIT: '1000000',
      STOREFRONT_WORKER: 'inline',
      LOG_LEVEL: 'info',
    });
    const service = await startService(config);
    const ctx = {
      db: values.db,
      origin: service.url,
      headers: { authorization: `Bearer ${key.key}` },
      productIds,
      checkoutId: store.default_checkout_id,
      handle: store.handle,
      runId: `ab-${randomBytes(4).toString('hex')}`,
      counter: 0,
    };
    const scenario = SCENARIOS.find((s) => s.name === scenarioName);
    if (scenario.prepare) await scenario.prepare(ctx);
    const next = scenario.make(ctx);
    const statuses = {};
    const run = async (count) => {
      let sent = 0;
      const lane = async () => {
        while (sent < count) {
          sent++;
          const { method, path, headers, body } = next();
          const res = await service.app.inject({ method, url: path, headers, payload: body });
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: numbers.concurrency }, lane));
    };
    await run(numbers.warmup);
    for (const k of Object.keys(statuses)) delete statuses[k];
    const before = process.cpuUsage();
    await run(numbers.requests);
    const used = process.cpuUsage(before);
    await service.close();
    const cpuUsPerRequest = Math.round((used.user + used.system) / numbers.requests);
    const result = { cpuUsPerRequest, statuses };
    if (process.send) process.send(result);
    else console.error(JSON.stringify(result)); // run by hand, e.g. under --cpu-prof
  } finally {
    if (values.db === 'postgres') await withPgClient(pgUrl, (c) => c.query(`DROP SCHEMA ${schema} CASCADE`));
    rmSync(dir, { recursive: true, force: true });
  }
}

function runChild(dist, scenario) {
  return new Promise((done, fail) => {
    const args = ['--heap-growing-percent=100', process.argv[1], '--child', scenario, '--build', `x=${dist}`];
    for (const name of ['db', 'requests', 'warmup', 'concurrency', 'seed'])
      args.push(`--${name}`, values[name]);
    // The server's log lines (stdout) are written, as `serve` writes them, but nobody reads them.
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    let result = null;
    proc.on('message', (message) => (result = message));
    proc.on('exit', (code) => {
      if (code !== 0 || !result) fail(new Error(`${scenario} on ${dist} exited ${code}`));
      else done(result);
    });
  });
}

async function parent() {
  const builds = (values.build ?? [`current=${resolve('packages/server/dist')}`]).map((spec) => {
    const [name, path] = spec.split('=');
    return { name, dist: resolve(path) };
  });
  const rounds = Number(values.rounds);
  for (const scenario of values.only.split(',')) {
    const samples = new Map(builds.map((b) => [b.name, []]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        const result = await runChild(build.dist, scenario);
        samples.get(build.name).push(result.cpuUsPerRequest);
        console.error(
          `ab: ${scenario} ${build.name} round ${round + 1}: ${result.cpuUsPerRequest} µs/req ${JSON.stringify(result.statuses)}`,
        );
      }
    }
    const medians = builds.map((b) => [
      b.name,
      percentile(
        [...samples.get(b.name)].sort((x, y) => x - y),
        50,
      ),
    ]);
    const [first] = medians;
    console.log(
      `${scenario} (${values.db}): ` +
        medians
          .map(
            ([name, m]) =>
              `${name} ${m} µs/req [${samples.get(name).join(', ')}]` +
              (name === first[0] ? '' : ` (${Math.round((m / first[1]) * 100)}%)`),
          )
          .join('  '),
    );
  }
}

if (values.help) console.log(USAGE);
else if (values.child) await child(values.build[0].split('=')[1], values.child);
else await parent();
