import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { isoAfter, nowIso } from '../common/time.js';
import { retryDelayMs } from '../webhooks/delivery/retry-schedule.js';
import type { DeliveryEmailStatus } from './delivery-email-object.js';
import type { EmailJobsTable } from './email-jobs.js';
import type { SendOutcome } from './smtp-mailer.js';

export interface RecordedEmail {
  status: DeliveryEmailStatus;
  nextAttemptAt: string | null;
  /** False when our lease had run out and another worker owns the job: nothing was written. */
  applied: boolean;
}

/**
 * Writes one attempt's result: the job is rescheduled (a temporary failure with retries left) or
 * deleted, and the sale's `delivery_email` updated, in one transaction and only under the lease it
 * was sent with.
 */
export async function recordEmailAttempt(
  db: Kysely<Database>,
  job: EmailJobsTable,
  outcome: SendOutcome,
  scheduleMs: readonly number[],
): Promise<RecordedEmail> {
  const finishedAt = nowIso();
  const attempt = job.attempts + 1;
  const delay = outcome.ok || outcome.permanent ? null : retryDelayMs(scheduleMs, attempt);
  const nextAttemptAt = delay === null ? null : isoAfter(delay, new Date(finishedAt));
  const status: DeliveryEmailStatus = outcome.ok ? 'sent' : nextAttemptAt === null ? 'failed' : 'pending';
  const lastError = outcome.ok
    ? null
    : !outcome.permanent && nextAttemptAt === null
      ? `${outcome.error} Gave up after ${attempt} attempts.`
      : outcome.error;

  const applied = await db.transaction().execute(async (trx) => {
    const owned =
      nextAttemptAt === null
        ? await dropEmailJob(trx, job)
        : (
            await trx
              .updateTable('email_jobs')
              .set({ attempts: attempt, next_attempt_at: nextAttemptAt, lease: null })
              .where('sale_id', '=', job.sale_id)
              .where('lease', '=', job.lease)
              .executeTakeFirst()
          ).numUpdatedRows;
    if (owned === 0n) return false;
    await trx
      .updateTable('sales')
      .set({
        delivery_email_status: status,
        delivery_email_attempts: sql`delivery_email_attempts + 1`,
        delivery_email_last_error: lastError,
        ...(outcome.ok ? { delivery_email_sent_at: finishedAt } : {}),
      })
      .where('id', '=', job.sale_id)
      .execute();
    return true;
  });
  return { status, nextAttemptAt, applied };
}

/** Settles a job that has nothing to send any more (its sale was refunded meanwhile), under our lease. */
export async function abandonEmail(db: Kysely<Database>, job: EmailJobsTable, reason: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if ((await dropEmailJob(trx, job)) === 0n) return;
    await trx
      .updateTable('sales')
      .set({ delivery_email_status: 'failed', delivery_email_last_error: reason })
      .where('id', '=', job.sale_id)
      .execute();
  });
}

/** Deletes a settled job if we still hold its lease; returns how many rows that was (0 or 1). */
async function dropEmailJob(trx: Kysely<Database>, job: EmailJobsTable): Promise<bigint> {
  const result = await trx
    .deleteFrom('email_jobs')
    .where('sale_id', '=', job.sale_id)
    .where('lease', '=', job.lease)
    .executeTakeFirst();
  return result.numDeletedRows;
}
