import { createSecureContext, rootCertificates } from 'node:tls';
import type { Kysely } from 'kysely';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { claimDue } from '../platform/jobs/claim-due.js';
import { startWorker } from '../platform/jobs/worker.js';
import type { JobLog, Worker } from '../platform/jobs/worker.js';
import { SecretBoxError, createSecretBox } from '../platform/values/secret-box.js';
import { countConversion } from '../platform/metrics/metrics.js';
import { metaTokenAssociatedData } from '../domain/stores/store-settings.js';
import { failureReason } from '../platform/outbound/failure-reason.js';
import { createWebhookAgent } from '../platform/outbound/agent.js';
import { postWebhook } from '../platform/outbound/post.js';
import type { WebhookPostResult } from '../platform/outbound/post.js';
import { CONVERSION_QUEUE, CONVERSION_WAKE } from '../domain/conversions/conversion-event.js';
import type { ConversionEventsTable } from '../domain/conversions/conversion-event.js';
import { loadEvent, newEventBatch } from './load-conversion-event.js';
import type { EventBatch } from './load-conversion-event.js';
import { metaEventOf, metaRequestBody } from '../domain/conversions/meta-payload.js';
import { abandonConversion, createConversionRecorder } from '../domain/conversions/record-conversion.js';
import type { ConversionAttempt } from '../domain/conversions/record-conversion.js';

export interface ConversionWorkerOptions {
  db: Kysely<Database>;
  config: Pick<Config, 'meta' | 'secret' | 'publicUrl'>;
  log: JobLog;
  /** How often the database is polled when idle (default 1 s); queued events wake the worker sooner. */
  pollIntervalMs?: number;
  /** Events in flight at once (default 32). */
  concurrency?: number;
}

/** `stop` lets the sends in flight finish and be recorded, then closes the connections. */
export type ConversionWorker = Worker;

export const USER_AGENT = 'Storefront-Conversions/1.0';
/** Room past the attempt timeout to record the result before another worker may take the event. */
const LEASE_MARGIN_MS = 5_000;

/** Meta's own words on a refusal (`{"error":{"message":…}}`), cut short; the operator chose Meta's URL. */
function metaMessage(body: string | undefined): string | null {
  try {
    const message = (JSON.parse(body ?? '') as { error?: { message?: unknown } }).error?.message;
    return typeof message === 'string' && message !== '' ? message.slice(0, 300) : null;
  } catch {
    return null;
  }
}

/**
 * A 4xx is Meta refusing this event or this token (400 invalid, 401/403 bad token or no permission):
 * retrying changes nothing, so it fails at once for the merchant to fix. 408 and 429 are Meta asking
 * for later, like a 5xx, a timeout or a network failure: retried on the schedule.
 */
export function attemptOf(result: WebhookPostResult, timeoutMs: number): ConversionAttempt {
  if (result.ok) return { ok: true, status: result.status, error: null, permanent: false };
  const status = result.status;
  const permanent = status !== null && status >= 400 && status < 500 && status !== 408 && status !== 429;
  const said = metaMessage(result.body);
  const error =
    result.code === undefined && status !== null
      ? `Meta answered ${status}${said !== null ? `: ${said}` : '.'}`
      : `Meta could not be reached: ${failureReason(result, timeoutMs)}.`;
  return { ok: false, status, error, permanent };
}

/**
 * The client every Meta request goes through. The operator's Meta host is the one host these requests
 * go to (no redirects are followed); the agent still refuses plain http and checks every other name it
 * is asked to resolve. An extra CA joins Node's own in one TLS context made here, not per connection.
 */
export function createMetaAgent(meta: Config['meta'], connections: number) {
  return createWebhookAgent({
    allowedHosts: new Set([new URL(meta.apiUrl).hostname]),
    connectTimeoutMs: meta.timeoutMs,
    connectionsPerOrigin: connections,
    ...(meta.ca !== null && {
      tls: { secureContext: createSecureContext({ ca: [...rootCertificates, meta.ca] }) },
    }),
  });
}

/** A leased event, with what the events claimed beside it share (`newEventBatch`). */
interface ClaimedEvent {
  event: ConversionEventsTable;
  batch: EventBatch;
}

/**
 * Sends queued conversion events to Meta's Conversions API, one event per request
 * (`POST <STOREFRONT_META_API_URL>/<pixel_id>/events`). Like the e-mail worker: any number of
 * workers may run on one PostgreSQL database, each event leased to one of them and its result
 * written only under that lease, so no two send the same attempt. Nothing here touches the sale.
 */
export function startConversionWorker(options: ConversionWorkerOptions): ConversionWorker {
  const { db, config, log } = options;
  const { meta } = config;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const concurrency = options.concurrency ?? 32;
  const box = createSecretBox(config.secret);
  const agent = createMetaAgent(meta, concurrency);
  const leaseMs = meta.timeoutMs + LEASE_MARGIN_MS;
  const record = createConversionRecorder(db, meta.retryScheduleMs);

  async function send({ event, batch }: ClaimedEvent): Promise<void> {
    const { store, source } = await loadEvent(db, event, config.publicUrl, batch);
    const pixel = store?.meta_pixel_id ?? null;
    const sealed = store?.meta_access_token_sealed ?? null;
    if (!store || pixel === null || sealed === null || source === null) {
      const reason =
        source === null
          ? 'Not sent: its order or sale no longer exists.'
          : 'Not sent: Meta conversions were removed from the store before it went out.';
      if (await abandonConversion(db, event, reason)) countConversion(event.kind, 'skipped');
      return;
    }
    let token: string;
    try {
      token = box.open(sealed, metaTokenAssociatedData(store.id));
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      const reason =
        'Not sent: the access token cannot be opened (the service secret changed); set it again.';
      if (await abandonConversion(db, event, reason)) countConversion(event.kind, 'failed');
      return;
    }
    const result = await postWebhook({
      dispatcher: agent,
      url: `${meta.apiUrl}/${encodeURIComponent(pixel)}/events`,
      body: metaRequestBody(metaEventOf(source), token, store.meta_test_event_code),
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
      timeoutMs: meta.timeoutMs,
    });
    const attempt = attemptOf(result, meta.timeoutMs);
    const recorded = await record(event, attempt);
    if (recorded.applied)
      countConversion(event.kind, recorded.status === 'pending' ? 'retrying' : recorded.status);
    const context = {
      conversion_event_id: event.id,
      kind: event.kind,
      store_id: store.id,
      status: result.status,
    };
    if (attempt.ok) log.debug(context, 'conversion event sent to Meta');
    else
      log.info(
        { ...context, error: result.error ?? attempt.error, next_attempt_at: recorded.nextAttemptAt },
        'conversion event not sent to Meta',
      );
  }

  return startWorker<ClaimedEvent>({
    name: 'conversion worker',
    log,
    pollIntervalMs,
    concurrency,
    wakeOn: [CONVERSION_WAKE],
    claim: async (limit) => {
      const batch = newEventBatch();
      const events = await claimDue<ConversionEventsTable>(db, CONVERSION_QUEUE, limit, leaseMs);
      return events.map((event) => ({ event, batch }));
    },
    handle: send,
    failed: ({ event }, err) =>
      log.error({ err, conversion_event_id: event.id }, 'conversion attempt could not be recorded'),
    close: () => agent.close(),
  });
}
