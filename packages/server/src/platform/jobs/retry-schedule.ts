import { isoAfter } from '../values/time.js';

/** ±10 %: spreads the retries of many deliveries that failed together (an endpoint outage). */
const JITTER = 0.1;

/**
 * Delay before the next automatic attempt after `attemptsDone` attempts, or null when the schedule
 * (STOREFRONT_WEBHOOK_RETRY_SCHEDULE: delays before retries 1..n) is exhausted.
 */
function retryDelayMs(scheduleMs: readonly number[], attemptsDone: number): number | null {
  const base = scheduleMs[attemptsDone - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - JITTER + 2 * JITTER * Math.random()));
}

/**
 * When a job's next automatic attempt is due after a failed one that finished at `finishedAt` (the
 * `attemptsDone`-th), or null when its schedule is exhausted: the one retry rule of every queue
 * (webhook deliveries, e-mails, conversion events), each with its own schedule.
 */
export function retryAt(
  scheduleMs: readonly number[],
  attemptsDone: number,
  finishedAt: string,
): string | null {
  const delay = retryDelayMs(scheduleMs, attemptsDone);
  return delay === null ? null : isoAfter(delay, new Date(finishedAt));
}
