import { StorefrontError } from './errors.js';

export const DEFAULT_TIMEOUT_MS = 15_000;
/** At most one extra attempt: a failing service is not hammered. */
export const DEFAULT_MAX_RETRIES = 1;

export interface ClientOptions {
  /** `sk_test_…` or `sk_live_…`. Keep it on the server, never in a browser. */
  apiKey: string;
  /** Service root, e.g. `https://shop.example.com`; the client adds `/api/public/v1`. */
  baseUrl: string;
  /** Milliseconds each attempt may take, response body included. Default 15000. */
  timeout?: number;
  /** Extra attempts after a retryable failure: 0 or 1. Default 1. */
  maxRetries?: number;
}

/** Per-call overrides, accepted as the last argument of every resource method. */
export interface RequestOptions {
  /** Overrides the client's `timeout` for this call. */
  timeout?: number;
  /** Overrides the client's `maxRetries` for this call (0 or 1). */
  maxRetries?: number;
  /** Sent as `Idempotency-Key`. POSTs without one get a generated UUID v4, reused by the retry. */
  idempotencyKey?: string;
}

export interface ResolvedConfig {
  apiKey: string;
  /** Absolute URL ending in `/api/public/v1`, no trailing slash. */
  apiBase: string;
  timeout: number;
  maxRetries: number;
}

const API_PREFIX = '/api/public/v1';

export function resolveConfig(options: ClientOptions): ResolvedConfig {
  if (typeof options?.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new StorefrontError('Storefront: `apiKey` is required (sk_test_… or sk_live_…)');
  }
  return {
    apiKey: options.apiKey,
    apiBase: resolveApiBase(options.baseUrl),
    timeout: checkTimeout(options.timeout ?? DEFAULT_TIMEOUT_MS),
    maxRetries: checkMaxRetries(options.maxRetries ?? DEFAULT_MAX_RETRIES),
  };
}

export function checkTimeout(timeout: number): number {
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout <= 0) {
    throw new StorefrontError(
      `Storefront: \`timeout\` must be a positive number of milliseconds, got ${timeout}`,
    );
  }
  return timeout;
}

export function checkMaxRetries(maxRetries: number): number {
  if (maxRetries !== 0 && maxRetries !== 1) {
    throw new StorefrontError(`Storefront: \`maxRetries\` must be 0 or 1, got ${maxRetries}`);
  }
  return maxRetries;
}

function resolveApiBase(baseUrl: string): string {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new StorefrontError(`Storefront: \`baseUrl\` must be an absolute URL, got ${String(baseUrl)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new StorefrontError(`Storefront: \`baseUrl\` must be http or https, got ${url.protocol}`);
  }
  if (url.search || url.hash) {
    throw new StorefrontError('Storefront: `baseUrl` must not carry a query string or fragment');
  }
  const root = url.href.replace(/\/+$/, '');
  // Passing the API root instead of the service root is an easy slip; accept it rather than
  // answering every call with a 404 on /api/public/v1/api/public/v1.
  return root.endsWith(API_PREFIX) ? root : root + API_PREFIX;
}
