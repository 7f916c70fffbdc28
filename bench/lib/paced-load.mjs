// A fixed request rate, evenly paced. autocannon's `overallRate` gives each connection a budget per
// second that it spends back-to-back at the start of the second, so "50% of the maximum" reaches the
// server as one-second bursts and p99 measures that queue. Here request i is sent at start + i/rate.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from './percentile.mjs';

function send(agent, origin, { method = 'GET', path, headers = {}, body }) {
  return new Promise((resolve) => {
    const request = http.request(new URL(path, origin), { agent, method, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode }));
      response.on('error', () => resolve({ error: true }));
    });
    request.on('error', () => resolve({ error: true }));
    request.end(body);
  });
}

/**
 * Latency is measured from when each request was due, not from when it was sent, so a server that
 * falls behind shows its queue (no coordinated omission). Same result shape as `runLoad`.
 */
export async function runPacedLoad({ origin, next, connections, durationSeconds, overallRate }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const interval = 1000 / overallRate;
  const start = performance.now();
  const end = start + durationSeconds * 1000;
  const latencies = [];
  const statusCodes = {};
  const pending = new Set();
  let errors = 0;
  let non2xx = 0;

  for (let i = 0; ; i += 1) {
    const due = start + i * interval;
    if (due >= end) break;
    const wait = due - performance.now();
    if (wait >= 1) await sleep(wait);
    const sent = send(agent, origin, next()).then(({ status, error }) => {
      latencies.push(performance.now() - due);
      if (error) errors += 1;
      else {
        statusCodes[status] = (statusCodes[status] ?? 0) + 1;
        if (status < 200 || status > 299) non2xx += 1;
      }
    });
    pending.add(sent);
    sent.finally(() => pending.delete(sent));
  }
  await Promise.all(pending);
  agent.destroy();
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rps: Math.round(latencies.length / seconds),
    total: latencies.length,
    p50: Math.round(percentile(latencies, 50)),
    p99: Math.round(percentile(latencies, 99)),
    max: Math.round(latencies[latencies.length - 1] ?? 0),
    errors,
    timeouts: 0,
    non2xx,
    statusCodes,
    durationSeconds: seconds,
  };
}
