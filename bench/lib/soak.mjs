// Constant load for a minute, the server's RSS sampled every second: does memory keep growing?
import { clearInterval, setInterval } from 'node:timers';
import { runLoad } from './load.mjs';
import { rssBytes, toMb } from './proc-stats.mjs';

const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;

export async function soak({ server, next, options, overallRate, seconds }) {
  const samples = [];
  const timer = setInterval(() => samples.push(rssBytes(server.pid)), 1000);
  let load;
  try {
    load = await runLoad({
      origin: server.url,
      next,
      connections: options.connections,
      pipelining: options.pipelining,
      durationSeconds: seconds,
      overallRate,
    });
  } finally {
    clearInterval(timer);
  }
  const window = Math.min(10, Math.floor(samples.length / 2));
  const firstMb = toMb(mean(samples.slice(0, window)));
  const lastMb = toMb(mean(samples.slice(-window)));
  return {
    seconds,
    overallRate,
    load,
    rssSamplesMb: samples.map(toMb),
    first10sMb: firstMb,
    last10sMb: lastMb,
    growthMb: Math.round((lastMb - firstMb) * 10) / 10,
  };
}
