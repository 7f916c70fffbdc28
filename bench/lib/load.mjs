// One autocannon run, reduced to the figures the table shows.
import autocannon from 'autocannon';

/**
 * `next()` returns `{ method, path, headers, body }` for each request: ids, cursors and
 * Idempotency-Keys change per request. With `overallRate`, latencies are corrected for
 * coordinated omission (autocannon's default), so a stalled server cannot hide its queue.
 */
export async function runLoad({ origin, next, connections, pipelining, durationSeconds, overallRate }) {
  const result = await autocannon({
    url: origin,
    connections,
    pipelining,
    duration: durationSeconds,
    ...(overallRate ? { overallRate } : {}),
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
