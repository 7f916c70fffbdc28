// `npm run bench`: the Storefront API against a bare Fastify baseline, in one run (bench/README.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseOptions } from './lib/options.mjs';
import { machineInfo, saveResults } from './lib/results-file.mjs';
import { runDatabase } from './lib/run-database.mjs';
import { startBaseline } from './lib/servers.mjs';
import { renderTable } from './lib/table.mjs';
import { TARGETS, missedTargets, soakVerdict } from './lib/targets.mjs';

const options = parseOptions(process.argv.slice(2));
if (options.peer !== null) {
  if (options.peer !== 'vendure') throw new Error(`--peer: only vendure is known, not ${options.peer}`);
  const { runVendurePeer } = await import('./peer/vendure.mjs');
  await runVendurePeer(options);
  process.exit(0);
}
const startedAt = new Date().toISOString();
const runId = startedAt.replace(/[:.]/g, '-');
const machine = machineInfo();
console.error(
  `bench: ${options.mode} mode, ${options.connections} connections, pipelining ${options.pipelining}, ` +
    `${options.durationSeconds} s per run after ${options.warmupSeconds} s warm-up, ` +
    `STOREFRONT_RATE_LIMIT=${options.rateLimit}, ${machine.cpus} CPUs, node ${machine.node}`,
);
for (const db of options.skippedDatabases)
  console.error(`bench: ${db} skipped: STOREFRONT_TEST_DATABASE_URL is not set`);

const logDir = mkdtempSync(join(tmpdir(), 'storefront-bench-baseline-'));
const baseline = await startBaseline({ logDir });
const rows = [];
const soaks = [];
try {
  for (const kind of options.databases) {
    const result = await runDatabase({ kind, options, baseline, runId });
    rows.push(...result.rows);
    if (result.soak) soaks.push(result.soak);
  }
} finally {
  await baseline.stop();
  rmSync(logDir, { recursive: true, force: true });
}

for (const row of rows) {
  if (row.status !== 'ok') continue;
  const missed = missedTargets(row);
  row.target = [
    row.targetRatio != null ? `≥${row.targetRatio}x` : null,
    row.targetP99Ms != null ? `p99<${row.targetP99Ms}` : null,
  ]
    .filter(Boolean)
    .join(' ');
  row.missed = missed;
  row.met = missed.length === 0 ? 'yes' : `NO: ${missed.join(', ')}`;
}

console.log(renderTable(rows));
for (const s of soaks) {
  const missed = soakVerdict(s);
  s.missed = missed;
  console.log(
    `${s.db}: ${s.seconds} s at ${s.overallRate} req/s (mixed): RSS ${s.first10sMb} MB (first 10 s) → ` +
      `${s.last10sMb} MB (last 10 s), growth ${s.growthMb} MB (min ${s.minMb}, max ${s.maxMb}), ` +
      `p99 ${s.load.p99} ms, ` +
      `errors ${s.load.errors}/${s.load.non2xx}: ${missed.length === 0 ? 'met' : `NO: ${missed.join(', ')}`}`,
  );
}
if (options.mode === 'quick') console.log('quick mode: figures are indicative only.');
if (options.soakSeconds === 0) console.log('no constant-load run (full mode has one; or --soak <seconds>).');

if (options.save) {
  const file = saveResults({
    startedAt,
    finishedAt: new Date().toISOString(),
    mode: options.mode,
    machine,
    settings: {
      connections: options.connections,
      pipelining: options.pipelining,
      warmupSeconds: options.warmupSeconds,
      durationSeconds: options.durationSeconds,
      seedProducts: options.seedProducts,
      rateLimit: options.rateLimit,
      logLevel: options.logLevel,
      profile: options.profile,
      quietWaitSeconds: options.quietWaitSeconds,
      baseline: options.baseline,
      serverBin: options.serverBin,
      databases: options.databases,
      skippedDatabases: options.skippedDatabases,
    },
    targets: TARGETS,
    rows,
    soaks,
  });
  console.error(`bench: results written to ${file}`);
}
