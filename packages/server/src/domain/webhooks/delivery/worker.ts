import type { Kysely } from 'kysely';
import type { Config } from '../../../platform/config/config.js';
import type { Database } from '../../../platform/db/schema.js';
import { countDelivery } from '../../../platform/metrics/metrics.js';
import { createGroupCommit } from '../../../platform/jobs/group-commit.js';
import { startWorker } from '../../../platform/jobs/worker.js';
import type { JobLog, Worker } from '../../../platform/jobs/worker.js';
import { OUTBOX_WAKE } from '../../../platform/outbox/outbox.js';
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
import { dropJobs, recordAttempts, trimHistory } from './record.js';
import type { FinishedAttempt, RecordedAttempt } from './record.js';
import { sendDelivery } from './send.js';

export interface DeliveryWorkerOptions {
  db: Kysely<Database>;
  config: Pick<Config, 'secret' | 'webhookRetryScheduleMs' | 'webhookTimeoutMs' | 'webhookAllowedHosts'>;
  log: JobLog;
  /** Extra TLS trust (a test receiver's certificate); NODE_EXTRA_CA_CERTS works too. */
  tls?: WebhookAgentOptions['tls'];
  /** How often the database is polled when idle (default 250 ms). */
  pollIntervalMs?: number;
  /** Attempts in flight at once (default 128: on 2 cores PostgreSQL needed 128 to pass 2,000 deliveries/s). */
  concurrency?: number;
}

/** `wake` looks for work now; `stop` lets the attempts in flight finish (each bounded by the timeout). */
export type DeliveryWorker = Worker;

const DISPATCH_BATCH = 500;
/** How far past the attempt timeout a lease reaches: room to write the result before another worker may retry. */
const LEASE_MARGIN_MS = 5_000;
/** Wakes on committed events fold into at most one round per this many ms (bench/README.md). */
const WAKE_GAP_MS = 25;

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

  // Attempt results written in group commits: one transaction per batch, not per attempt.
  const results = createGroupCommit<FinishedAttempt, RecordedAttempt>((batch) =>
    recordAttempts(db, batch, config.webhookRetryScheduleMs),
  );
  const touchedEndpoints = new Set<string>();

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

  return startWorker<ClaimedJob>({
    name: 'webhook worker',
    log,
    pollIntervalMs,
    concurrency,
    wakeOn: [OUTBOX_WAKE],
    wakeGapMs: WAKE_GAP_MS,
    // More events than one batch: the next round starts at once. Due jobs beyond the free slots need
    // no such flag: finishing attempts wake the worker.
    beforeClaim: async () => (await dispatchEvents(db, DISPATCH_BATCH)) === DISPATCH_BATCH,
    claim: (limit) => claimDueJobs(db, limit, leaseMs),
    handle: attempt,
    failed: ({ job }, err) => log.error({ err, job_id: job.id }, 'webhook attempt could not be recorded'),
    afterClaim: async () => {
      for (const endpointId of touchedEndpoints) {
        touchedEndpoints.delete(endpointId);
        await trimHistory(db, endpointId);
      }
    },
    close: () => agent.destroy(),
  });
}
