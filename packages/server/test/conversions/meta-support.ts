import { createHash } from 'node:crypto';
import { startConversionWorker } from '../../src/flows/send-meta-conversions.js';
import type { ConversionWorker } from '../../src/flows/send-meta-conversions.js';
import { metricsRegistry } from '../../src/platform/metrics/metrics.js';
import { startHttpsReceiver } from '../support/https-receiver.js';
import type { HttpsReceiver, ReceivedRequest } from '../support/https-receiver.js';
import type { TestApi } from '../support/test-api.js';
import { silentLog } from '../webhooks/delivery-harness.js';

export const GRAPH_VERSION = 'v21.0';
/** Three quick retries after the first attempt: four attempts in all. */
export const TEST_RETRY_SCHEDULE = [50, 50, 50];

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A fake Graph API over real HTTPS: answers what Meta answers to an accepted event by default. */
export function startFakeGraph(): Promise<HttpsReceiver> {
  return startHttpsReceiver({
    defaultResponse: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ events_received: 1, messages: [], fbtrace_id: 'AbCdEf' }),
    },
  });
}

export const metaError = (status: number, message: string, code = 190) => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ error: { message, type: 'OAuthException', code, fbtrace_id: 'X' } }),
});

/** The conversion worker of the service, pointed at the fake and trusting its certificate. */
export function startTestConversionWorker(api: TestApi, graph: HttpsReceiver): ConversionWorker {
  return startConversionWorker({
    db: api.db,
    config: {
      ...api.config,
      meta: {
        apiUrl: `${graph.url}/${GRAPH_VERSION}`,
        ca: graph.ca,
        timeoutMs: 1_000,
        retryScheduleMs: TEST_RETRY_SCHEDULE,
      },
    },
    log: silentLog,
    pollIntervalMs: 50,
  });
}

let pixels = 0;
/** A pixel id of its own per store, so a test tells its requests apart on a shared fake. */
export const newPixelId = () => `${Date.now()}${++pixels}`.slice(-15);

/** Sets the store's Meta settings through the public API (PATCH /store). */
export async function setMeta(api: TestApi, key: string, meta: Record<string, unknown> | null) {
  const res = await api.as(key).patch('/store', { conversions: { meta } });
  if (res.status !== 200) throw new Error(`PATCH /store: ${res.status} ${res.text}`);
  return res.body;
}

export interface SentEvent {
  request: ReceivedRequest;
  body: { data: any[]; access_token: string; test_event_code?: string };
  event: any;
}

/** What the fake received for one pixel, parsed, in arrival order. */
export function sentTo(graph: HttpsReceiver, pixelId: string): SentEvent[] {
  return graph.requests
    .filter((request) => request.path === `/${GRAPH_VERSION}/${pixelId}/events`)
    .map((request) => {
      const body = JSON.parse(request.body);
      return { request, body, event: body.data[0] };
    });
}

/** The counter's value for one label pair (counters are per process: compare before and after). */
export async function conversionCount(kind: string, outcome: string): Promise<number> {
  const metric = await metricsRegistry.getSingleMetric('storefront_conversion_events_total')!.get();
  return metric.values.find((v) => v.labels.kind === kind && v.labels.outcome === outcome)?.value ?? 0;
}

/** The conversion rows of one cause. */
export function conversionRows(api: TestApi, storeId: string) {
  return api.db
    .selectFrom('conversion_events')
    .selectAll()
    .where('store_id', '=', storeId)
    .orderBy('created_at')
    .execute();
}
