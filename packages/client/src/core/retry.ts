import { isApiError, isTimeout, NetworkError, RateLimitError, type StorefrontError } from './errors.js';

/** Statuses worth retrying; every other 4xx is the caller's to fix, so retrying cannot help. */
const RETRYABLE_STATUSES = new Set([429, 500, 502, 503, 504]);

/**
 * Cap on the wait taken from a 429's Retry-After, so one call never hangs for long. If the limit
 * still holds after the capped wait, the retry's RateLimitError (with `retryAfter`) reaches the caller.
 */
export const MAX_RETRY_AFTER_SECONDS = 60;

// Spread retries from many clients that failed together (a restart, a blip) instead of a stampede.
const MIN_DELAY_MS = 500;
const MAX_DELAY_MS = 1000;

export function isRetryable(error: StorefrontError): boolean {
  if (isTimeout(error) || error instanceof NetworkError) return true;
  return isApiError(error) && RETRYABLE_STATUSES.has(error.status);
}

export function retryDelayMs(error: StorefrontError): number {
  if (error instanceof RateLimitError && error.retryAfter !== null) {
    return Math.min(error.retryAfter, MAX_RETRY_AFTER_SECONDS) * 1000;
  }
  return MIN_DELAY_MS + Math.random() * (MAX_DELAY_MS - MIN_DELAY_MS);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
