// Hot-loop CPU time of two request-path reads (findProduct, findStore) in two builds, on one SQLite
// database of 5,000 seeded products, in alternating rounds: what compiling a query once saves
// (src/platform/db/reused-query.ts; bench/README.md, "Issue 18, second round").
//
//   node bench/reused-queries.mjs <base packages/server/dist> [<new dist, default this worktree's>]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { seedProducts } from './lib/seed.mjs';

const [baseDist, newDist = 'packages/server/dist'] = process.argv.slice(2);
if (!baseDist) {
  console.error('usage: node bench/reused-queries.mjs <base dist> [<new dist>]');
  process.exit(2);
}
const load = (dist, path) => import(pathToFileURL(join(resolve(dist), path)).href);
const LOOPS = 20_000;
const ROUNDS = 4;

const dir = mkdtempSync(join(tmpdir(), 'storefront-reused-'));
try {
  const url = `sqlite:${join(dir, 'storefront.sqlite')}`;
  const { openDatabase } = await load(newDist, 'platform/db/database.js');
  const { migrateToLatest } = await load(newDist, 'platform/db/migrations/migrate.js');
  const { createStore } = await load(newDist, 'flows/create-store.js');
  const setup = openDatabase(url);
  await migrateToLatest(setup.kysely);
  const store = await createStore(setup.kysely, { name: 'Loja' });
  const ids = await seedProducts(setup, store.id, 5000);
  await setup.close();

  const builds = [];
  for (const [name, dist] of [
    ['base', baseDist],
    ['new', newDist],
  ]) {
    const db = (await load(dist, 'platform/db/database.js')).openDatabase(url);
    const { findProduct } = await load(dist, 'domain/catalogue/products-repository.js');
    const { findStore } = await load(dist, 'domain/stores/stores.js');
    builds.push({ name, db, findProduct, findStore, samples: [] });
  }

  const cpuPerCall = async (call) => {
    for (let i = 0; i < LOOPS / 10; i++) await call(i);
    const before = process.cpuUsage();
    for (let i = 0; i < LOOPS; i++) await call(i);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / LOOPS;
  };
  for (let round = 0; round < ROUNDS; round++) {
    for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
      const product = await cpuPerCall((i) =>
        build.findProduct(build.db.kysely, store.id, ids[i % ids.length]),
      );
      const storeRead = await cpuPerCall(() => build.findStore(build.db.kysely, store.id));
      build.samples.push([product, storeRead]);
    }
  }
  for (const build of builds) {
    const show = (k) => build.samples.map((s) => s[k].toFixed(1)).join(', ');
    console.log(`${build.name}: findProduct [${show(0)}] µs, findStore [${show(1)}] µs`);
    await build.db.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
