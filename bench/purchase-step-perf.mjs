// Where one step of a purchase spends its CPU, by component, read with Linux `perf`: it samples every
// thread of the server with its whole stack, kernel and native code included (SQLite's C, zlib, the
// socket's system calls), which V8's own profiler shows only as "(program)" or one native frame.
// `--count` requests of the step are made in bulk after the earlier steps of as many purchases, once
// to warm up and once under `perf record`; each sample is then put in one component (the first rule
// of COMPONENTS that its stack matches, or else its innermost JavaScript package), and the table gives
// each component's share and its µs per request of the CPU measured in the same run. Sampling and the
// symbol map cost CPU of their own (~20% of a writing step, up to ~80% of a page view, mostly in V8's
// helper threads): compare shares, and compare µs only within a run.
//
//   npm run build -w packages/server && node bench/purchase-step-perf.mjs --kind page --step order
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { processCpuNs } from './lib/proc-stats.mjs';
import { PURCHASE_KINDS } from './lib/purchase-steps.mjs';
import { startStepServer } from './lib/step-server.mjs';
import { textTable } from './lib/table.mjs';

const { values } = parseArgs({
  options: {
    kind: { type: 'string', default: 'page' },
    step: { type: 'string', default: 'order' },
    count: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '4' },
    db: { type: 'string', default: 'sqlite' },
    top: { type: 'string', default: '20' },
  },
});
const count = Number(values.count);
const concurrency = Number(values.concurrency);
const steps = PURCHASE_KINDS[values.kind]?.steps;
if (!steps) throw new Error(`unknown purchase kind ${values.kind}`);
const stepIndex = steps.findIndex((step) => step.name === values.step);
if (stepIndex < 0) throw new Error(`${values.kind} has no step ${values.step}`);
if (spawnSync('perf', ['--version']).status !== 0) {
  console.error('purchase-step-perf needs Linux perf (Debian: apt-get install linux-perf)');
  process.exit(2);
}
const pgUrl = process.env.STOREFRONT_TEST_DATABASE_URL || null;
if (values.db === 'postgres' && !pgUrl) throw new Error('--db postgres needs STOREFRONT_TEST_DATABASE_URL');

/**
 * Components that own everything beneath them wherever they sit in a stack, first match wins: the QR
 * and SQLite are whole subsystems, and a socket write is the kernel's however deep it is called.
 */
const COMPONENTS = [
  ['QR symbol', /qrSymbol|qrcode\/lib/],
  ['QR PNG (deflate, CRC)', /encodeMonochromePng|renderQrPng/],
  ['SQLite commit', /commitTransaction/],
  ['SQLite statements', /sqlite3_|Statement::/],
  ['garbage collection', /Heap::|Scavenger|MarkCompact|GCTracer|ConcurrentMarking|Sweeper/],
  // V8's helper threads: optimising compilers and the rest of the collector's concurrent work.
  ['V8 helper threads', /PlatformWorkerThread/],
  ['crypto (hashes, AES-GCM)', /node:internal\/crypto|node:crypto|crypto::|EVP_/],
  ['JSON', /JsonStringifier|JsonParser|fast-json-stringify/],
  ['socket writes', /writev|__x64_sys_write\b|tcp_sendmsg/],
  ['socket reads, epoll', /tcp_recvmsg|__x64_sys_read\b|epoll_wait/],
  ['logging', /pino|access-log|process-log|sonic-boom/],
];
/** Otherwise the innermost frame that one of these names. */
const INNERMOST = [
  ['Kysely (building, driver)', /kysely\//],
  ['Fastify', /fastify|find-my-way|avvio/],
  ['validation', /ajv|validation\.js|schema-validator/],
  ['Node HTTP, streams', /_http_|llhttp|Parser::|node:internal\/streams|node:net|stream_base/],
  ['Storefront JS', /packages\/server\/dist\//],
  ['other packages', /node_modules/],
  ['Node core, other', /node:/],
];

function componentOf(stack) {
  const text = stack.join('\n');
  for (const [name, pattern] of COMPONENTS) if (pattern.test(text)) return name;
  for (const frame of stack) for (const [name, pattern] of INNERMOST) if (pattern.test(frame)) return name;
  return stack[0]?.includes('[kernel') ? 'kernel, other' : 'V8 and native, other';
}

/** A frame without its address, offset and object, and a script's path from the repository on. */
const frameName = (frame) =>
  frame
    .replace(/^[0-9a-f]+ /, '')
    .replace(/\+0x[0-9a-f]+ .*$/, '')
    .replace(/file:\/\/\S*?\/(packages|node_modules)\//, '$1/');

/** `perf script`'s samples: a header line, then one frame per line, innermost first; a blank line ends one. */
async function readSamples(file) {
  const script = spawn('perf', ['script', '-i', file], { stdio: ['ignore', 'pipe', 'ignore'] });
  const byComponent = new Map();
  const bySymbol = new Map();
  let samples = 0;
  let stack = [];
  const add = (map, key) => map.set(key, (map.get(key) ?? 0) + 1);
  const flush = () => {
    if (stack.length === 0) return;
    samples++;
    add(byComponent, componentOf(stack));
    add(bySymbol, frameName(stack[0]));
    stack = [];
  };
  for await (const line of createInterface({ input: script.stdout })) {
    if (line.trim() === '') flush();
    else if (line[0] === '\t' || line[0] === ' ') stack.push(line.trim());
  }
  flush();
  return { samples, byComponent, bySymbol };
}

const workDir = mkdtempSync(join(tmpdir(), 'storefront-perf-'));
const perfData = join(workDir, 'perf.data');
// JIT code is named in /tmp/perf-<pid>.map, which perf reads to name JavaScript frames. The flag also
// turns on V8's log, kept in the work folder rather than an isolate-*.log per thread in the cwd.
process.env.BENCH_SERVER_NODE_ARGS = [
  process.env.BENCH_SERVER_NODE_ARGS ?? '',
  '--perf-basic-prof',
  `--logfile=${join(workDir, 'v8.log')}`,
  '--no-logfile-per-isolate',
].join(' ');
const bench = await startStepServer({ db: values.db, pgUrl, concurrency });
let cpuUs = 0;
try {
  for (const measured of [false, true]) {
    const states = Array.from({ length: measured ? count : Math.min(count, 1000) }, () => ({}));
    for (const step of steps.slice(0, stepIndex)) await bench.runStep(states, step);
    await bench.drained();
    const perf = measured
      ? spawn('perf', ['record', '-F', '1999', '-g', '-p', String(bench.server.pid), '-o', perfData], {
          stdio: 'ignore',
        })
      : null;
    if (perf) await sleep(500); // perf attaches to every thread before the step starts
    const before = processCpuNs(bench.server.pid);
    await bench.runStep(states, steps[stepIndex]);
    await bench.drained();
    cpuUs = (processCpuNs(bench.server.pid) - before) / 1000 / states.length;
    if (perf) {
      const exited = new Promise((resolve) => perf.once('exit', resolve));
      perf.kill('SIGINT');
      await exited;
    }
  }
} finally {
  await bench.close();
}
// After the run, while the server's symbol map is still there to name its JavaScript frames.
const { samples, byComponent, bySymbol } = await readSamples(perfData);
rmSync(workDir, { recursive: true, force: true });
rmSync(`/tmp/perf-${bench.server.pid}.map`, { force: true });
const share = (n) => n / samples;
const rows = (map, limit) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, n]) => ({
      name,
      share: `${(100 * share(n)).toFixed(1)}%`,
      us: Math.round(share(n) * cpuUs),
    }));
console.log(
  `${values.kind} / ${values.step} (${values.db}): ${count} requests, ${concurrency} at a time, ` +
    `${Math.round(cpuUs)} CPU µs per request under perf, ${samples} samples`,
);
console.log(
  textTable(rows(byComponent, Infinity), [
    ['component', (r) => r.name],
    ['share', (r) => r.share],
    ['µs/request', (r) => r.us],
  ]),
);
console.log(`\ninnermost frames (self time), top ${values.top}:`);
console.log(
  textTable(rows(bySymbol, Number(values.top)), [
    ['frame', (r) => r.name.slice(0, 110)],
    ['share', (r) => r.share],
    ['µs/request', (r) => r.us],
  ]),
);
