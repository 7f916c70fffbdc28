import type { Kysely } from 'kysely';
import type { Config, SmtpSettings } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { claimDue } from '../platform/jobs/claim-due.js';
import { claimInTurn, startWorker } from '../platform/jobs/worker.js';
import type { JobLog, Worker } from '../platform/jobs/worker.js';
import { loadDeliveryEmail } from './delivery-content.js';
import {
  CANCELLATION_QUEUE,
  DELIVERY_QUEUE,
  EMAIL_WAKE,
  RECOVERY_QUEUE,
  jobOf,
} from '../domain/email/email-queue.js';
import { loadCancellationEmail } from './queue-cancellation-email.js';
import type { EmailJob, EmailQueue } from '../domain/email/email-queue.js';
import { recipientOf } from './queue-delivery-email.js';
import { abandonEmail, recordEmailAttempt } from '../domain/email/record-email.js';
import { loadRecoveryEmail } from './queue-recovery-email.js';
import { createMailer } from '../platform/mail/smtp-mailer.js';
import type { MailerOptions, OutgoingEmail } from '../platform/mail/smtp-mailer.js';
import { composeDeliveryEmail } from '../domain/email/template.js';
import { countEmail } from '../platform/metrics/metrics.js';

export interface EmailWorkerOptions extends MailerOptions {
  db: Kysely<Database>;
  smtp: SmtpSettings;
  /** The retry schedule, and what links to an order's page (the recovery e-mail). */
  config: Pick<Config, 'emailRetryScheduleMs' | 'secret' | 'publicUrl'>;
  log: JobLog;
  /** How often the database is polled when idle (default 1 s); queued e-mails wake the worker sooner. */
  pollIntervalMs?: number;
  /** E-mails in flight at once (default 8). */
  concurrency?: number;
}

/** `stop` lets the sends in flight finish and be recorded, then closes the connections. */
export type EmailWorker = Worker;

/** Longer than any one send can take (timeouts included), so a lease never runs out under a live send. */
const LEASE_MS = 5 * 60_000;

/** `<sale-<id>@<domain of STOREFRONT_MAIL_FROM>>`: one per sale, the same on a retry or a resend. */
export function messageIdFor(saleId: string, smtp: Pick<SmtpSettings, 'fromDomain'>): string {
  return `<sale-${saleId}@${smtp.fromDomain}>`;
}

/** A leased job and the queue it came from. */
interface QueuedEmail {
  queue: EmailQueue;
  job: EmailJob;
}

/** What a job has to send, or why it has nothing to send (the job is then settled with that reason). */
/** Why a queued e-mail was not sent, as the API shows it (`last_error`); the dashboard words them its way. */
export const NOT_SENT = {
  saleNoAddress: 'The sale has no e-mail address to send to.',
  saleRefunded: 'The sale was refunded before its e-mail went out; nothing was sent.',
  orderNoAddress: 'The order has no e-mail address or no page link to send.',
  orderSettled: 'The order was paid or canceled before its recovery e-mail went out.',
  subscriptionNoAddress: 'The subscription has no e-mail address to send to.',
} as const;

type Prepared = { email: OutgoingEmail } | { nothing: string; status?: 'failed' | 'skipped' };

/**
 * Sends queued e-mails: sales' delivery e-mails, abandoned orders' recovery e-mails and the buyer's
 * notice that the store canceled their subscription. Any number of workers may run against one PostgreSQL database: each
 * job is leased to one of them, and its result is written only under that lease, so no two workers
 * send the same attempt.
 */
export function startEmailWorker(options: EmailWorkerOptions): EmailWorker {
  const { db, smtp, config, log } = options;
  const pollIntervalMs = options.pollIntervalMs ?? 1000;
  const concurrency = options.concurrency ?? 8;
  const mailer = createMailer(smtp, { ...options, maxConnections: Math.min(concurrency, 4) });

  async function prepareDelivery(job: EmailJob): Promise<Prepared> {
    const source = await loadDeliveryEmail(db, job.id);
    const to = source ? recipientOf(source.sale) : null;
    if (!source || to === null) return { nothing: NOT_SENT.saleNoAddress };
    if (source.sale.status === 'refunded') return { nothing: NOT_SENT.saleRefunded };
    return {
      email: {
        ...composeDeliveryEmail(source.input),
        to: { name: source.input.customerName ?? '', address: to },
        messageId: messageIdFor(source.sale.id, smtp),
      },
    };
  }

  async function prepareRecovery(job: EmailJob): Promise<Prepared> {
    const source = await loadRecoveryEmail(db, config, job.id);
    if (!source || source.to === null || source.email === null) return { nothing: NOT_SENT.orderNoAddress };
    // Never after the order is settled: a payment or a cancel that came first wins.
    if (source.order.status === 'paid' || source.order.status === 'canceled')
      return {
        nothing: NOT_SENT.orderSettled,
        status: 'skipped',
      };
    return {
      email: {
        ...source.email,
        to: source.to,
        messageId: `<order-${source.order.id}-recovery@${smtp.fromDomain}>`,
      },
    };
  }

  async function prepareCancellation(job: EmailJob): Promise<Prepared> {
    const source = await loadCancellationEmail(db, job.id);
    if (!source || source.to === null) return { nothing: NOT_SENT.subscriptionNoAddress };
    return {
      email: {
        ...source.email,
        to: source.to,
        messageId: `<subscription-${job.id}-canceled@${smtp.fromDomain}>`,
      },
    };
  }

  const prepare = { delivery: prepareDelivery, recovery: prepareRecovery, cancellation: prepareCancellation };

  async function send({ queue, job }: QueuedEmail): Promise<void> {
    const prepared = await prepare[queue.name](job);
    if ('nothing' in prepared) {
      await abandonEmail(db, queue, job, prepared.nothing, prepared.status);
      return;
    }
    const outcome = await mailer.send(prepared.email);
    const recorded = await recordEmailAttempt(db, queue, job, outcome, config.emailRetryScheduleMs);
    if (recorded.applied) countEmail(recorded.status === 'pending' ? 'retrying' : recorded.status);
    const context = { [queue.key]: job.id, attempt: job.attempts + 1, status: recorded.status };
    if (outcome.ok) log.debug(context, `${queue.name} e-mail sent`);
    else
      log.info(
        { ...context, error: outcome.error, next_attempt_at: recorded.nextAttemptAt },
        `${queue.name} e-mail not sent`,
      );
  }

  /** Leases up to `limit` due jobs of a queue (`claimDue`). */
  const claimFrom = (queue: EmailQueue) => async (limit: number) =>
    (await claimDue<Parameters<typeof jobOf>[1]>(db, queue, limit, LEASE_MS)).map((row) => ({
      queue,
      job: jobOf(queue, row),
    }));

  return startWorker<QueuedEmail>({
    name: 'e-mail worker',
    log,
    pollIntervalMs,
    concurrency,
    wakeOn: [EMAIL_WAKE],
    claim: (limit) =>
      claimInTurn(limit, [
        claimFrom(DELIVERY_QUEUE),
        claimFrom(RECOVERY_QUEUE),
        claimFrom(CANCELLATION_QUEUE),
      ]),
    handle: send,
    failed: ({ queue, job }, err) =>
      log.error({ err, [queue.key]: job.id }, `${queue.name} e-mail attempt could not be recorded`),
    close: async () => mailer.close(),
  });
}
