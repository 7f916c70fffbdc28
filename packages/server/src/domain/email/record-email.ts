import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { nowIso } from '../../platform/values/time.js';
import { retryAt } from '../../platform/jobs/retry-schedule.js';
import type { DeliveryEmailStatus } from '../kernel/email-status.js';
import { queueDb } from './email-queue.js';
import type { EmailJob, EmailQueue } from './email-queue.js';
import type { SendOutcome } from '../../platform/mail/smtp-mailer.js';

export interface RecordedEmail {
  status: DeliveryEmailStatus;
  nextAttemptAt: string | null;
  /** False when our lease had run out and another worker owns the job: nothing was written. */
  applied: boolean;
}

/**
 * Writes one attempt's result: the job is rescheduled (a temporary failure with retries left) or
 * deleted, and its row's e-mail state updated (`queue.settle`), in one transaction and only under the
 * lease it was sent with.
 */
export async function recordEmailAttempt(
  db: Kysely<Database>,
  queue: EmailQueue,
  job: EmailJob,
  outcome: SendOutcome,
  scheduleMs: readonly number[],
): Promise<RecordedEmail> {
  const finishedAt = nowIso();
  const attempt = job.attempts + 1;
  const nextAttemptAt = outcome.ok || outcome.permanent ? null : retryAt(scheduleMs, attempt, finishedAt);
  const status: DeliveryEmailStatus = outcome.ok ? 'sent' : nextAttemptAt === null ? 'failed' : 'pending';
  const lastError = outcome.ok
    ? null
    : !outcome.permanent && nextAttemptAt === null
      ? `${outcome.error} Gave up after ${attempt} attempts.`
      : outcome.error;

  const applied = await db.transaction().execute(async (trx) => {
    const owned =
      nextAttemptAt === null
        ? await dropEmailJob(trx, queue, job)
        : (
            await queueDb(trx)
              .updateTable(queue.table)
              .set({ attempts: attempt, next_attempt_at: nextAttemptAt, lease: null })
              .where(queue.key, '=', job.id)
              .where('lease', '=', job.lease)
              .executeTakeFirst()
          ).numUpdatedRows;
    if (owned === 0n) return false;
    await queue.settle(trx, job.id, {
      status,
      lastError,
      sentAt: outcome.ok ? finishedAt : null,
      attempted: true,
    });
    return true;
  });
  return { status, nextAttemptAt, applied };
}

/**
 * Settles, under our lease, a job that has nothing to send any more (a refunded sale, an order paid
 * meanwhile): `failed`, or the status given, with the reason.
 */
export async function abandonEmail(
  db: Kysely<Database>,
  queue: EmailQueue,
  job: EmailJob,
  reason: string,
  status: DeliveryEmailStatus = 'failed',
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if ((await dropEmailJob(trx, queue, job)) === 0n) return;
    await queue.settle(trx, job.id, { status, lastError: reason, sentAt: null, attempted: false });
  });
}

/** Deletes a settled job if we still hold its lease; returns how many rows that was (0 or 1). */
async function dropEmailJob(trx: Kysely<Database>, queue: EmailQueue, job: EmailJob): Promise<bigint> {
  const result = await queueDb(trx)
    .deleteFrom(queue.table)
    .where(queue.key, '=', job.id)
    .where('lease', '=', job.lease)
    .executeTakeFirst();
  return result.numDeletedRows;
}
