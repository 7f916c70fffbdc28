import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { createGroupCommit } from '../../platform/jobs/group-commit.js';
import { nowIso } from '../../platform/values/time.js';
import { retryAt } from '../../platform/jobs/retry-schedule.js';
import type { ConversionEventsTable, ConversionStatus } from './conversion-event.js';

export interface ConversionAttempt {
  ok: boolean;
  /** Meta's HTTP status, or null when no answer came. */
  status: number | null;
  /** Why it did not count, as the dashboard shows it; null when sent. */
  error: string | null;
  /** A refusal a retry cannot change (a bad token, an invalid event): no more attempts. */
  permanent: boolean;
}

export interface RecordedConversion {
  status: ConversionStatus;
  nextAttemptAt: string | null;
  /** False when our lease had run out and another worker owns the event: nothing was written. */
  applied: boolean;
}

type Leased = Pick<ConversionEventsTable, 'id' | 'attempts' | 'lease'>;

/**
 * Writes one attempt's result under the lease it was made with: sent, retried later (a temporary
 * failure with retries left), or failed for good. Settled rows keep their answer and are never due.
 */
export async function recordConversionAttempt(
  db: Kysely<Database>,
  event: Leased,
  attempt: ConversionAttempt,
  scheduleMs: readonly number[],
): Promise<RecordedConversion> {
  const finishedAt = nowIso();
  const attempts = event.attempts + 1;
  const nextAttemptAt = attempt.ok || attempt.permanent ? null : retryAt(scheduleMs, attempts, finishedAt);
  const status: ConversionStatus = attempt.ok ? 'sent' : nextAttemptAt === null ? 'failed' : 'pending';
  const lastError =
    attempt.error !== null && !attempt.permanent && status === 'failed'
      ? `${attempt.error} Gave up after ${attempts} attempts.`
      : attempt.error;
  const result = await db
    .updateTable('conversion_events')
    .set({
      status,
      attempts,
      next_attempt_at: nextAttemptAt,
      lease: null,
      response_status: attempt.status,
      last_error: lastError,
      ...(attempt.ok && { sent_at: finishedAt }),
      ...(status !== 'pending' && { settled_at: finishedAt }),
    })
    .where('id', '=', event.id)
    .where('lease', '=', event.lease)
    .executeTakeFirst();
  return { status, nextAttemptAt, applied: result.numUpdatedRows > 0n };
}

/** Settles, under our lease, an event with nothing to send any more (Meta removed, its sale gone). */
export async function abandonConversion(
  db: Kysely<Database>,
  event: Leased,
  reason: string,
): Promise<boolean> {
  const now = nowIso();
  const result = await db
    .updateTable('conversion_events')
    .set({ status: 'failed', next_attempt_at: null, lease: null, last_error: reason, settled_at: now })
    .where('id', '=', event.id)
    .where('lease', '=', event.lease)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Attempts recorded in group commits: the results that arrive together share one transaction (one
 * commit, not one per event), each still written only under its own lease.
 */
export function createConversionRecorder(db: Kysely<Database>, scheduleMs: readonly number[]) {
  const commit = createGroupCommit<{ event: Leased; attempt: ConversionAttempt }, RecordedConversion>(
    (batch) =>
      db.transaction().execute(async (trx) => {
        const results: RecordedConversion[] = [];
        for (const { event, attempt } of batch)
          results.push(await recordConversionAttempt(trx, event, attempt, scheduleMs));
        return results;
      }),
  );
  return (event: Leased, attempt: ConversionAttempt) => commit.record({ event, attempt });
}
