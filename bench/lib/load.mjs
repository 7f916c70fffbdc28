// One autocannon run, reduced to the figures the table shows.
import autocannon from 'autocannon';
import { runPacedLoad } from './paced-load.mjs';

/**
 * `next()` returns `{ method, path, headers, body }` for each request: ids, cursors and
 * Idempotency-Keys change per request. Without a rate, autocannon finds the maximum; with
 * `overallRate`, requests are evenly paced (see paced-load.mjs for why not autocannon's own).
 */
export async function runLoad({ origin, next, connections, pipelining, durationSeconds, overallRate }) {
  if (overallRate) return runPacedLoad({ origin, next, connections, durationSeconds, overallRate });
  const result = await autocannon({
    url: origin,
    connections,
    pipelining,
    duration: durationSeconds,
    requests: [{ setupRequest: (request) => ({ ...request, ...next() }) }],
  });
  const statusCodes = Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, Number(count)]),
  );
  return {
    rps: Math.round(result.requests.average),
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    durationSeconds: result.duration,
  };
}
