import { createHmac, randomBytes } from 'node:crypto';

/**
 * Webhook signing: `Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`,
 * keyed with the endpoint's whole secret string, `whsec_` prefix included, as UTF-8.
 */

export const SIGNATURE_HEADER = 'Service-Signature';
export const SECRET_PREFIX = 'whsec_';

/**
 * Returns the full header value. The timestamp is signed too, so a receiver can refuse replays.
 * Several secrets (during a rotation's overlap) give one `v1=` each, current first: a receiver that
 * accepts any matching `v1` verifies with whichever secret it holds.
 */
export function signPayload(
  secrets: string | readonly string[],
  timestampSeconds: number,
  rawBody: string,
): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError('timestampSeconds must be a non-negative integer');
  }
  const macs = (typeof secrets === 'string' ? [secrets] : secrets).map((secret) =>
    createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(`${timestampSeconds}.${rawBody}`, 'utf8')
      .digest('hex'),
  );
  return [`t=${timestampSeconds}`, ...macs.map((mac) => `v1=${mac}`)].join(',');
}

/** `whsec_` + 64 hex characters (256 random bits). Shown to the merchant once, stored encrypted. */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('hex');
}
