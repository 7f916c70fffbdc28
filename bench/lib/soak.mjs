// Constant load for a minute, the server's RSS sampled every second: does memory keep growing?
import { clearInterval, setInterval } from 'node:timers';
import { runLoad } from './load.mjs';
import { rssBytes, toMb } from './proc-stats.mjs';

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

/** Load at this rate for `WARMUP_SECONDS` before sampling: the heap regrowing after an idle pause is not growth. */
const WARMUP_SECONDS = 10;

export async function soak({ server, next, options, overallRate, seconds }) {
  const common = {
    origin: server.url,
    next,
    connections: options.connections,
    pipelining: options.pipelining,
  };
  await runLoad({ ...common, durationSeconds: WARMUP_SECONDS, overallRate });
  const samples = [];
  const timer = setInterval(() => samples.push(rssBytes(server.pid)), 1000);
  let load;
  try {
    load = await runLoad({ ...common, durationSeconds: seconds, overallRate });
  } finally {
    clearInterval(timer);
  }
  const window = Math.min(10, Math.floor(samples.length / 2));
  const firstMb = toMb(mean(samples.slice(0, window)));
  const lastMb = toMb(mean(samples.slice(-window)));
  return {
    seconds,
    warmupSeconds: WARMUP_SECONDS,
    overallRate,
    load,
    rssSamplesMb: samples.map(toMb),
    first10sMb: firstMb,
    last10sMb: lastMb,
    growthMb: Math.round((lastMb - firstMb) * 10) / 10,
    // A GC sawtooth (steady rise, then a drop at a major collection) can hide in, or fake, the above.
    minMb: toMb(Math.min(...samples)),
    maxMb: toMb(Math.max(...samples)),
  };
}
