import type { Kysely } from 'kysely';
import type { Config, SmtpSettings } from '../config/config.js';
import type { Database } from '../db/schema.js';
import type { WorkerLog } from '../webhooks/delivery/worker.js';
import { onNewEvents } from '../webhooks/delivery/wake.js';
import { claimDueEmails } from './claim-emails.js';
import { loadDeliveryEmail } from './delivery-content.js';
import type { EmailJobsTable } from './email-jobs.js';
import { recipientOf } from './queue-delivery-email.js';
import { abandonEmail, recordEmailAttempt } from './record-email.js';
import { createMailer } from './smtp-mailer.js';
import type { MailerOptions } from './smtp-mailer.js';
import { composeDeliveryEmail } from './template.js';
import { countEmail } from '../operations/metrics.js';
import { startPollLoop } from '../common/poll-loop.js';

export interface EmailWorkerOptions extends MailerOptions {
  db: Kysely<Database>;
  smtp: SmtpSettings;
  config: Pick<Config, 'emailRetryScheduleMs'>;
  log: WorkerLog;
  /** How often the database is polled when idle (default 1 s); API writes wake the worker sooner. */
  pollIntervalMs?: number;
  /** E-mails in flight at once (default 8). */
  concurrency?: number;
}

export interface EmailWorker {
  /** Look for work now rather than at the next poll. */
  wake(): void;
  /** Stops claiming, lets the sends in flight finish and be recorded, then closes the connections. */
  stop(): Promise<void>;
}

/** Longer than any one send can take (timeouts included), so a lease never runs out under a live send. */
const LEASE_MS = 5 * 60_000;

/** `<sale-<id>@<domain of STOREFRONT_MAIL_FROM>>`: one per sale, the same on a retry or a resend. */
export function messageIdFor(saleId: string, smtp: Pick<SmtpSettings, 'fromDomain'>): string {
  return `<sale-${saleId}@${smtp.fromDomain}>`;
}

/**
 * Sends queued delivery e-mails. Any number of workers may run against one PostgreSQL database: each
 * job is leased to one of them, and its result is written only under that lease, so no two workers
 * send the same attempt.
 */
export function startEmailWorker(options: EmailWorkerOptions): EmailWorker {
  const { db, smtp, config, log } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const concurrency = options.concurrency ?? 8;
  const mailer = createMailer(smtp, { ...options, maxConnections: Math.min(concurrency, 4) });
  const inFlight = new Set<Promise<void>>();

  function wake(): void {
    loop.wake();
  }

  async function send(job: EmailJobsTable): Promise<void> {
    const source = await loadDeliveryEmail(db, job.sale_id);
    const to = source ? recipientOf(source.sale) : null;
    if (!source || to === null || source.sale.status === 'refunded') {
      const reason =
        source?.sale.status === 'refunded'
          ? 'The sale was refunded before its e-mail went out; nothing was sent.'
          : 'The sale has no e-mail address to send to.';
      await abandonEmail(db, job, reason);
      return;
    }
    const { sale, input } = source;
    const outcome = await mailer.send({
      ...composeDeliveryEmail(input),
      to: { name: input.customerName ?? '', address: to },
      messageId: messageIdFor(sale.id, smtp),
    });
    const recorded = await recordEmailAttempt(db, job, outcome, config.emailRetryScheduleMs);
    if (recorded.applied) countEmail(recorded.status === 'pending' ? 'retrying' : recorded.status);
    const context = { sale_id: sale.id, attempt: job.attempts + 1, status: recorded.status };
    if (outcome.ok) log.debug(context, 'delivery e-mail sent');
    else
      log.info(
        { ...context, error: outcome.error, next_attempt_at: recorded.nextAttemptAt },
        'delivery e-mail not sent',
      );
  }

  function start(job: EmailJobsTable): void {
    const running = send(job)
      .catch((err) =>
        log.error({ err, sale_id: job.sale_id }, 'delivery e-mail attempt could not be recorded'),
      )
      .finally(() => {
        inFlight.delete(running);
        // Claim again once half the slots are free: batches of claims, not one query per e-mail.
        if (inFlight.size <= concurrency / 2) wake();
      });
    inFlight.add(running);
  }

  // Wakes that arrive during a round (API writes, finished sends) fold into one more round.
  const loop = startPollLoop({
    round: async () => {
      const free = concurrency - inFlight.size;
      if (free > 0) (await claimDueEmails(db, free, LEASE_MS)).forEach(start);
      return false;
    },
    pollIntervalMs,
    log,
    name: 'delivery e-mail worker',
  });
  const unsubscribe = onNewEvents(wake);
  let stopped: Promise<void> | null = null;
  return {
    wake,
    stop() {
      stopped ??= (async () => {
        unsubscribe();
        await loop.stop();
        await Promise.all(inFlight);
        mailer.close();
      })();
      return stopped;
    },
  };
}
