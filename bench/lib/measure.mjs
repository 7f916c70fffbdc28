// One scenario, side by side: the bare baseline answering as many JSON bytes, then the server.
import { request } from './http.mjs';
import { runLoad } from './load.mjs';
import { peakRssBytes, resetPeakRss, toMb, watchCpu } from './proc-stats.mjs';

/** A warm-up run (JIT, caches, connection pools), then the measured run. */
async function warmThenMeasure(load, options, pid) {
  if (options.warmupSeconds > 0) await runLoad({ ...load, durationSeconds: options.warmupSeconds });
  const cpu = watchCpu(pid, [pid, process.pid]);
  const result = await runLoad({ ...load, durationSeconds: options.durationSeconds });
  const { cpuSeconds, otherCpuPct } = cpu();
  // CPU per request barely depends on how busy the machine is, unlike requests per second.
  const cpuUsPerRequest = result.total > 0 ? Math.round((cpuSeconds * 1e6) / result.total) : null;
  return { ...result, otherCpuPct, cpuUsPerRequest };
}

/** One request of the scenario, to learn the status and the size of its JSON answer. */
export async function sampleOf(origin, next) {
  const { method, path, headers, body } = next();
  const res = await request(origin + path, { method, headers, body });
  if (res.status >= 300) throw new Error(`sample ${method} ${path} answered ${res.status}: ${res.text}`);
  return { method, path, headers, body, status: res.status, bytes: res.bytes };
}

/** Runs `next` against the server with its peak RSS reset first; returns the load figures and the peak. */
export async function measureServer({ server, next, options, overallRate }) {
  resetPeakRss(server.pid);
  const load = { origin: server.url, next, connections: options.connections, pipelining: options.pipelining };
  const result = await warmThenMeasure({ ...load, overallRate }, options, server.pid);
  return { ...result, peakRssMb: toMb(peakRssBytes(server.pid)) };
}

export async function measureBaseline({ baseline, sample, options }) {
  const fixed = {
    method: sample.method,
    path: `/${sample.status}/${sample.bytes}`,
    headers: sample.headers,
    body: sample.body,
  };
  resetPeakRss(baseline.pid);
  const load = {
    origin: baseline.url,
    next: () => fixed,
    connections: options.connections,
    pipelining: options.pipelining,
  };
  const result = await warmThenMeasure(load, options, baseline.pid);
  return { ...result, peakRssMb: toMb(peakRssBytes(baseline.pid)) };
}
