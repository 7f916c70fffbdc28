import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Config } from '../../src/platform/config/config.js';
import { startDeliveryWorker } from '../../src/domain/webhooks/delivery/worker.js';
import type { DeliveryWorker } from '../../src/domain/webhooks/delivery/worker.js';
import type { JobLog } from '../../src/platform/jobs/worker.js';
import { startHttpsReceiver } from '../support/https-receiver.js';
import type { HttpsReceiver, ReceivedRequest } from '../support/https-receiver.js';
import type { TestApi } from '../support/test-api.js';
import { scaled } from '../support/time-scale.js';

/** Hosts exempt from the address rules in these suites; receivers add their random 127.x.y.z here. */
export const allowedHosts = new Set<string>();

export const silentLog: JobLog = { debug() {}, info() {}, warn() {}, error() {} };

/** Short, test-sized delivery settings: two quick retries, a short timeout. */
export const TEST_DELIVERY: Pick<Config, 'webhookRetryScheduleMs' | 'webhookTimeoutMs'> = {
  webhookRetryScheduleMs: [100, 100],
  webhookTimeoutMs: 1000,
};

export function startTestWorker(
  api: TestApi,
  receiver: HttpsReceiver,
  overrides: Partial<Config> = {},
): DeliveryWorker {
  return startDeliveryWorker({
    db: api.db,
    config: { ...api.config, ...TEST_DELIVERY, ...overrides },
    log: silentLog,
    tls: { ca: receiver.ca },
  });
}

/**
 * For a suite: a real HTTPS receiver on 127.x.y.z:8443 (allowed as a webhook host) and a delivery
 * worker sending to it, started before the suite's tests and stopped after them.
 */
export function useReceiverAndWorker(api: TestApi): { receiver(): HttpsReceiver; worker(): DeliveryWorker } {
  let receiver: HttpsReceiver | undefined;
  let worker: DeliveryWorker | undefined;
  beforeAll(async () => {
    receiver = await startHttpsReceiver({ port: 8443 });
    allowedHosts.add(receiver.host);
    worker = startTestWorker(api, receiver);
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
  });
  return { receiver: () => receiver!, worker: () => worker! };
}

/** Polls until `check` returns a value that is not undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = scaled(15_000),
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let paths = 0;
/** A receiver URL of its own, so a test can tell its requests apart. */
export function uniqueUrl(receiver: HttpsReceiver): string {
  return `${receiver.url}/hooks/${++paths}-${Math.random().toString(36).slice(2, 8)}`;
}

export const requestsTo = (receiver: HttpsReceiver, url: string): ReceivedRequest[] =>
  receiver.requests.filter((r) => `${receiver.url}${r.path}` === url);

/** Checks a Service-Signature the way a receiver would, computed here independently of the service. */
export function expectValidSignature(request: ReceivedRequest, secret: string): void {
  const header = String(request.headers['service-signature']);
  const parts = new Map(header.split(',').map((part) => part.split('=') as [string, string]));
  const t = Number(parts.get('t'));
  expect(Math.abs(Date.now() / 1000 - t)).toBeLessThan(300);
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${t}.${request.body}`, 'utf8')
    .digest('hex');
  expect(parts.get('v1')).toBe(expected);
}

export async function createEndpoint(
  api: TestApi,
  key: string,
  url: string,
  body: Record<string, unknown> = {},
): Promise<{ id: string; secret: string }> {
  const res = await api.as(key).post('/webhooks', { url, events: ['checkout.created'], ...body });
  if (res.status !== 201) throw new Error(`endpoint not created: ${res.text}`);
  return { id: res.body.id, secret: res.body.secret };
}

/** The endpoint's history through the API once it holds at least `count` attempts. */
export function deliveriesOf(api: TestApi, key: string, endpointId: string, count: number): Promise<any[]> {
  return eventually(async () => {
    const res = await api.as(key).get(`/webhooks/${endpointId}/deliveries`);
    return res.body.data.length >= count ? (res.body.data as any[]) : undefined;
  });
}
