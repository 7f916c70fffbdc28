import type { Kysely } from 'kysely';
import type { BaseLogger } from 'pino';
import type { Config } from '../../../platform/config/config.js';
import type { Database } from '../../../platform/db/schema.js';
import { countDelivery } from '../../../platform/metrics/metrics.js';
import { startPollLoop } from '../../../platform/jobs/poll-loop.js';
import { createSecretBox } from '../../../platform/values/secret-box.js';
import { nowIso } from '../../../platform/values/time.js';
import { createWebhookAgent } from '../../../platform/outbound/agent.js';
import { signingSecrets } from '../secret-rotation.js';
import type { WebhookAgentOptions } from '../../../platform/outbound/agent.js';
import { claimDueJobs } from './claim.js';
import type { ClaimedJob } from './claim.js';
import { dispatchEvents } from './dispatch.js';
import { failureReason } from '../../../platform/outbound/failure-reason.js';
import type { AttemptResult } from '../../../platform/outbound/failure-reason.js';
import { dropJobs, trimHistory } from './record.js';
import { createResultWriter } from './result-writer.js';
import { sendDelivery } from './send.js';
import { onNewEvents } from '../../../platform/jobs/wake.js';

export type WorkerLog = Pick<BaseLogger, 'debug' | 'info' | 'warn' | 'error'>;

export interface DeliveryWorkerOptions {
  db: Kysely<Database>;
  config: Pick<Config, 'secret' | 'webhookRetryScheduleMs' | 'webhookTimeoutMs' | 'webhookAllowedHosts'>;
  log: WorkerLog;
  /** Extra TLS trust (a test receiver's certificate); NODE_EXTRA_CA_CERTS works too. */
  tls?: WebhookAgentOptions['tls'];
  /** How often the database is polled when idle (default 250 ms). */
  pollIntervalMs?: number;
  /** Attempts in flight at once (default 128: on 2 cores PostgreSQL needed 128 to pass 2,000 deliveries/s). */
  concurrency?: number;
}

export interface DeliveryWorker {
  /** Look for work now rather than at the next poll. */
  wake(): void;
  /** Stops claiming, lets the attempts in flight finish (each is bounded by the timeout), then returns. */
  stop(): Promise<void>;
}

const DISPATCH_BATCH = 500;
/** How far past the attempt timeout a lease reaches: room to write the result before another worker may retry. */
const LEASE_MARGIN_MS = 5_000;
/** At most one round per this many ms in answer to API writes (see `nudge`). */
const NUDGE_GAP_MS = 25;

/**
 * The delivery engine: outbox → jobs → signed attempts → history. Any number of workers may run
 * against one PostgreSQL database; every step claims its rows, so no attempt is handed out twice.
 */
export function startDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { db, config, log } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 250;
  const concurrency = options.concurrency ?? 128;
  const leaseMs = config.webhookTimeoutMs + LEASE_MARGIN_MS;
  const secretBox = createSecretBox(config.secret);
  const agent = createWebhookAgent({
    allowedHosts: config.webhookAllowedHosts,
    connectTimeoutMs: config.webhookTimeoutMs,
    ...(options.tls ? { tls: options.tls } : {}),
  });

  const results = createResultWriter(db, config.webhookRetryScheduleMs);
  const inFlight = new Set<Promise<void>>();
  const touchedEndpoints = new Set<string>();

  function wake(): void {
    loop.wake();
  }

  /**
   * API writes nudge the worker, but under write load a round per write cost two write transactions
   * per request even with no endpoint at all (bench/README.md). Nudges are folded into at most one
   * round per NUDGE_GAP_MS; the worker's own wakes (free slots) stay immediate.
   */
  let lastRoundAt = 0;
  let nudgeTimer: NodeJS.Timeout | null = null;
  function nudge(): void {
    const wait = lastRoundAt + NUDGE_GAP_MS - Date.now();
    if (wait <= 0) return wake();
    nudgeTimer ??= setTimeout(() => {
      nudgeTimer = null;
      wake();
    }, wait).unref();
  }

  async function attempt({ job, endpoint, event }: ClaimedJob): Promise<void> {
    if (!endpoint || endpoint.deleted_at !== null || endpoint.status !== 'active' || !event) {
      await dropJobs(db, [job]);
      return;
    }
    const startedAt = nowIso();
    let result: AttemptResult & { error?: string };
    try {
      const secrets = signingSecrets(endpoint, secretBox);
      result = await sendDelivery(
        agent,
        { url: endpoint.url, secrets, eventId: event.id, payload: event.payload },
        config.webhookTimeoutMs,
      );
    } catch (err) {
      // The secret no longer opens (STOREFRONT_SECRET changed): unsignable, so a failed attempt.
      result = { ok: false, status: null, code: 'unsignable', error: (err as Error).message };
    }
    const outcome = {
      ok: result.ok,
      status: result.status,
      error: failureReason(result, config.webhookTimeoutMs),
      startedAt,
      finishedAt: nowIso(),
    };
    const recorded = await results.record({ job, eventType: event.type, outcome });
    countDelivery(result.ok ? 'delivered' : recorded.nextRetryAt ? 'retrying' : 'failed');
    touchedEndpoints.add(endpoint.id);
    const context = {
      endpoint_id: endpoint.id,
      event_id: event.id,
      attempt: recorded.attempt,
      status: result.status,
    };
    if (result.ok) log.debug(context, 'webhook delivered');
    else
      log.info(
        { ...context, error: result.error, next_retry_at: recorded.nextRetryAt },
        'webhook attempt failed',
      );
    if (recorded.disabled)
      log.warn({ endpoint_id: endpoint.id }, 'webhook endpoint disabled after 5 days of failures');
  }

  function start(claimed: ClaimedJob): void {
    const running = attempt(claimed)
      .catch((err) => log.error({ err, job_id: claimed.job.id }, 'webhook attempt could not be recorded'))
      .finally(() => {
        inFlight.delete(running);
        // Claim again once half the slots are free: batches of claims, not one query per completion.
        if (inFlight.size <= concurrency / 2) wake();
      });
    inFlight.add(running);
  }

  /**
   * One round of work; true when more events are waiting to be fanned out. Due jobs beyond the free
   * slots need no flag: finishing attempts wake the loop.
   */
  async function tick(): Promise<boolean> {
    lastRoundAt = Date.now();
    const dispatched = await dispatchEvents(db, DISPATCH_BATCH);
    const free = concurrency - inFlight.size;
    const claimed = free > 0 ? await claimDueJobs(db, free, leaseMs) : [];
    claimed.forEach(start);
    for (const endpointId of touchedEndpoints) {
      touchedEndpoints.delete(endpointId);
      await trimHistory(db, endpointId);
    }
    return dispatched === DISPATCH_BATCH;
  }

  const loop = startPollLoop({ round: tick, pollIntervalMs, log, name: 'webhook worker' });
  const unsubscribe = onNewEvents(nudge);

  let stopped: Promise<void> | null = null;
  return {
    wake,
    stop() {
      stopped ??= (async () => {
        unsubscribe();
        if (nudgeTimer) clearTimeout(nudgeTimer);
        await loop.stop();
        await Promise.all(inFlight);
        await agent.destroy();
      })();
      return stopped;
    },
  };
}
