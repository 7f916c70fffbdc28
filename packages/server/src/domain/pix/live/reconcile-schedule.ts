/**
 * When a pending live charge is asked about at its PSP: at each step after creation (default 15 s,
 * 1 min, 5 min), then every last step (5 min) until 10 minutes past its expiry. A lost callback thus
 * delays a payment but never loses it.
 */
/** The reconciler's wake (platform/jobs/wake.ts): a PSP callback has made checks due now. */
export const RECONCILE_WAKE = 'pix-checks';

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

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Until its due date a cycle's charge only waits: a look every 6 hours (a callback brings news sooner). */
const BEFORE_DUE_MS = 6 * HOUR_MS;
/** From its due date it settles or fails, and retries follow: a look every 30 minutes. */
const FROM_DUE_MS = 30 * 60_000;
/** Retries end within 7 days of the due date; one more day covers the last one settling. */
const AFTER_DUE_DAYS = 8;

/**
 * A Pix Automático cycle charge (`GET /cobr/{txid}`): the charge schedule's steps after it was sent
 * (15 s, 1 min, 5 min, catching a refusal at once), then every 6 hours until its due date (00:00 in
 * Brasília, UTC-3), every 30 minutes from then, and none after 8 days past it.
 */
export function nextCycleCheckAt(
  sentAt: string,
  dueDate: string,
  now: Date,
  schedule: readonly number[] = DEFAULT_RECONCILE_SCHEDULE_MS,
): string | null {
  const sent = Date.parse(sentAt);
  const early = schedule.find((step) => sent + step > now.getTime());
  if (early !== undefined) return new Date(sent + early).toISOString();
  const due = Date.parse(`${dueDate}T03:00:00.000Z`);
  const end = due + AFTER_DUE_DAYS * DAY_MS;
  const step = now.getTime() < due ? BEFORE_DUE_MS : FROM_DUE_MS;
  const next = Math.min(now.getTime() + step, Math.max(due, now.getTime() + FROM_DUE_MS));
  return next > end ? null : new Date(next).toISOString();
}

/**
 * A Pix Automático authorisation (`GET /rec/{idRec}`) while its subscription lives: the payer can
 * revoke it at their bank any day, so once a day (the `/rec` callback brings it sooner).
 */
export function nextAuthorisationCheckAt(now: Date): string {
  return new Date(now.getTime() + DAY_MS).toISOString();
}
