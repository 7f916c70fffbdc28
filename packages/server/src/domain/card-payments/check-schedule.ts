/**
 * When a live payment still `processing` or `requires_action` is next read at its PSP: 15 s, 1 min
 * and 5 min after it was made, then every 5 minutes for 24 hours. A lost notification delays an
 * outcome by at most one step; after a day the PSP has long decided, and nothing is asked any more.
 */
const FIRST_CHECKS_MS = [15_000, 60_000, 300_000] as const;
const EVERY_MS = 300_000;
const GIVE_UP_AFTER_MS = 24 * 60 * 60_000;

/** The first check strictly after `now`, or null once past the day. */
export function nextCardCheckAt(createdAt: string, now: Date): string | null {
  const created = Date.parse(createdAt);
  const elapsed = now.getTime() - created;
  const first = FIRST_CHECKS_MS.find((offset) => offset > elapsed);
  const last = FIRST_CHECKS_MS[FIRST_CHECKS_MS.length - 1]!;
  const offset = first ?? last + (Math.floor((elapsed - last) / EVERY_MS) + 1) * EVERY_MS;
  return offset > GIVE_UP_AFTER_MS ? null : new Date(created + offset).toISOString();
}
