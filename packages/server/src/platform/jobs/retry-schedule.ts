/** ±10 %: spreads the retries of many deliveries that failed together (an endpoint outage). */
const JITTER = 0.1;

/**
 * Delay before the next automatic attempt after `attemptsDone` attempts, or null when the schedule
 * (STOREFRONT_WEBHOOK_RETRY_SCHEDULE: delays before retries 1..n) is exhausted.
 */
export function retryDelayMs(
  scheduleMs: readonly number[],
  attemptsDone: number,
  random = Math.random,
): number | null {
  const base = scheduleMs[attemptsDone - 1];
  if (base === undefined) return null;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
