/**
 * When a live payment still `processing` or `requires_action` is next read at its PSP: at each step
 * after it was made (default 15 s, 1 min, 5 min, STOREFRONT_CARD_RECONCILE_SCHEDULE), then every last
 * step for 24 hours. A lost notification delays an outcome by at most one step; after a day the PSP
 * has long decided, and nothing is asked any more.
 */
export const DEFAULT_CARD_CHECK_SCHEDULE_MS: readonly number[] = [15_000, 60_000, 300_000];
const GIVE_UP_AFTER_MS = 24 * 60 * 60_000;

/** The first check strictly after `now`, or null once past the day. */
export function nextCardCheckAt(
  createdAt: string,
  now: Date,
  schedule: readonly number[] = DEFAULT_CARD_CHECK_SCHEDULE_MS,
): string | null {
  const created = Date.parse(createdAt);
  const elapsed = now.getTime() - created;
  const last = schedule[schedule.length - 1]!;
  const offset =
    schedule.find((step) => step > elapsed) ?? last + (Math.floor((elapsed - last) / last) + 1) * last;
  return offset > GIVE_UP_AFTER_MS ? null : new Date(created + offset).toISOString();
}
