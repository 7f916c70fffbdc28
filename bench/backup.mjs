// Online backup of a SQLite database while `storefront serve` takes writes: seconds per 100k products.
//
//   npm run build -w packages/server && node bench/backup.mjs [products] [writers]   (default 100000, 4)
//
// Opt-in (not part of `npm run bench`). Seeds the products straight into the table, starts the built
// server, and runs `storefront backup` twice as production would (a separate process): once with the
// server idle, as the baseline of the same run, and once while `writers` connections create products
// over HTTP without pause. Reports both times, their ratio, seconds per 100k products, and the write
// throughput the server kept during the copy against the throughput just before it.
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { prepareDatabase } from './lib/database.mjs';
import { serverBin } from './lib/paths.mjs';
import { startStorefront } from './lib/servers.mjs';

const run = promisify(execFile);
const products = Number(process.argv[2] ?? 100_000);
const writerCount = Number(process.argv[3] ?? 4);

const database = await prepareDatabase({ kind: 'sqlite', seedCount: products });
const server = await startStorefront({ database, options: { rateLimit: 1_000_000, logLevel: 'warn' } });
let written = 0;
let writing = false;

async function writer(id) {
  for (let n = 0; writing; n++) {
    const res = await globalThis.fetch(`${server.api}/products`, {
      method: 'POST',
      headers: { authorization: `Bearer ${database.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ nome: `Carga ${id}-${n}`, preco: 19.9 }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`write failed: ${res.status}`);
    written++;
  }
}

async function backup(name) {
  const file = join(database.dir, `${name}.sqlite`);
  const started = performance.now();
  const { stdout } = await run(process.execPath, [serverBin, 'backup', file, '--json'], {
    env: { ...process.env, DATABASE_URL: database.databaseUrl },
  });
  return { ...JSON.parse(stdout), wallSeconds: (performance.now() - started) / 1000 };
}

try {
  const idle = await backup('idle');

  writing = true;
  const writers = Array.from({ length: writerCount }, (_, i) => writer(i));
  await sleep(3000); // warm: JIT, page cache, the write path's steady state
  const before = { count: written, at: performance.now() };
  await sleep(3000);
  const beforeRate = (written - before.count) / ((performance.now() - before.at) / 1000);
  const during = { count: written, at: performance.now() };
  const loaded = await backup('loaded');
  const duringRate = (written - during.count) / ((performance.now() - during.at) / 1000);
  writing = false;
  await Promise.all(writers);

  const perHundredK = (seconds) => ((seconds * 100_000) / products).toFixed(2);
  console.log(
    `node ${process.version}, SQLite, ${products} seeded products, ${writerCount} writers over HTTP`,
  );
  console.log(`database copied: ${(loaded.bytes / 1e6).toFixed(1)} MB, ${loaded.pages} pages`);
  console.log(
    `backup idle:   ${idle.seconds.toFixed(2)} s copy (${idle.wallSeconds.toFixed(2)} s with process start), ${perHundredK(idle.seconds)} s per 100k products`,
  );
  console.log(
    `backup loaded: ${loaded.seconds.toFixed(2)} s copy (${loaded.wallSeconds.toFixed(2)} s with process start), ${perHundredK(loaded.seconds)} s per 100k products`,
  );
  console.log(`loaded / idle copy time: ${(loaded.seconds / idle.seconds).toFixed(2)}`);
  console.log(
    `writes/s kept during the backup: ${duringRate.toFixed(0)} vs ${beforeRate.toFixed(0)} just before (${((100 * duringRate) / beforeRate).toFixed(0)}%)`,
  );
} finally {
  writing = false;
  await server.stop();
  await database.cleanup();
}
