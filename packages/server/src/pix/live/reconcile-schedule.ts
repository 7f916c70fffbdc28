/**
 * When a pending live charge is asked about at its PSP: at each step after creation (default 15 s,
 * 1 min, 5 min), then every last step (5 min) until 10 minutes past its expiry. A lost callback thus
 * delays a payment but never loses it.
 */
export const DEFAULT_RECONCILE_SCHEDULE_MS: readonly number[] = [15_000, 60_000, 300_000];
const AFTER_EXPIRY_MS = 10 * 60_000;

export function firstCheckAt(
  createdAt: Date,
  schedule: readonly number[] = DEFAULT_RECONCILE_SCHEDULE_MS,
): string {
  return new Date(createdAt.getTime() + schedule[0]!).toISOString();
}

/** The next check strictly after `now`, or null once past the expiry window. */
export function nextCheckAt(
  createdAt: string,
  expiresAt: string,
  now: Date,
  schedule: readonly number[] = DEFAULT_RECONCILE_SCHEDULE_MS,
): string | null {
  const created = Date.parse(createdAt);
  const elapsed = now.getTime() - created;
  const last = schedule[schedule.length - 1]!;
  let offset = schedule.find((step) => step > elapsed);
  if (offset === undefined) offset = last + Math.floor((elapsed - last) / last + 1) * last;
  const next = created + offset;
  return next > Date.parse(expiresAt) + AFTER_EXPIRY_MS ? null : new Date(next).toISOString();
}

/** Refunds have no expiry: the same steps after the request, then every last step until settled. */
export function nextRefundCheckAt(
  requestedAt: string,
  now: Date,
  schedule: readonly number[] = DEFAULT_RECONCILE_SCHEDULE_MS,
): string {
  return nextCheckAt(requestedAt, '9999-12-31T23:59:59.999Z', now, schedule)!;
}
