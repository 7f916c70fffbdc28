import { NetworkError, TimeoutError } from './errors.js';

export interface RawResponse {
  status: number;
  headers: Headers;
  bodyText: string;
}

/**
 * One HTTP exchange with a deadline covering the whole response, body included, so a server that
 * stalls mid-body still times out. Failures without a response become NetworkError or TimeoutError.
 */
export async function sendOnce(url: string, init: RequestInit, timeout: number): Promise<RawResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeout);
  try {
    const response = await fetch(url, { ...init, signal: controller.signal, redirect: 'manual' });
    const bodyText = await response.text();
    return { status: response.status, headers: response.headers, bodyText };
  } catch (error) {
    // Only our own timer aborts this controller, so an aborted signal means the deadline passed.
    if (controller.signal.aborted) throw new TimeoutError(timeout);
    throw new NetworkError(`Network error calling ${url}: ${describe(error)}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

// fetch reports "fetch failed" and hides the useful part (ECONNREFUSED, ENOTFOUND…) in `cause`.
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error) return `${error.message} (${cause.message})`;
  return error.message;
}
