import { performance } from 'node:perf_hooks';
import { setImmediate as nextLoopTurn } from 'node:timers/promises';
import { request } from 'undici';
import type { Dispatcher } from 'undici';

/**
 * One delivery attempt: a single POST that never throws and never follows redirects (undici's
 * `request` only follows them when a redirect interceptor is composed in, and none is).
 */

export interface WebhookPost {
  /** The dispatcher from createWebhookAgent; it owns the address checks and the keep-alive pool. */
  dispatcher: Dispatcher;
  url: string | URL;
  body: string;
  headers: Record<string, string>;
  /** Covers the whole attempt: connect, headers and the (capped) body. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface WebhookPostResult {
  /** True only for a 2xx whose response was read within the timeout: the delivery succeeded. */
  ok: boolean;
  /** The response status, or null when no response headers arrived. */
  status: number | null;
  /** 'timeout', 'aborted', or '<code>: <message>' for transport failures (blocked address, TLS, …). */
  error?: string;
  /** The failure's code alone: 'timeout', 'aborted' or the transport error's code (ECONNREFUSED, …). */
  code?: string;
  /** The first RESPONSE_BODY_CAP bytes of the response body, as UTF-8 (for diagnostics only). */
  body?: string;
  durationMs: number;
}

export const RESPONSE_BODY_CAP = 4 * 1024;
// Reading a little past the cap lets the socket go back to the pool for the usual small bodies; a
// bigger body is cut off by destroying the stream (and the connection with it).
const DRAIN_LIMIT = 64 * 1024;

export async function postWebhook(req: WebhookPost): Promise<WebhookPostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(req.url);
  if (url.protocol !== 'https:') {
    return {
      ok: false,
      status: null,
      error: 'EBLOCKEDADDRESS: https only',
      code: 'EBLOCKEDADDRESS',
      durationMs: 0,
    };
  }

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, req.timeoutMs);
  const onAbort = () => controller.abort();
  req.signal?.addEventListener('abort', onAbort, { once: true });
  if (req.signal?.aborted) controller.abort();

  let status: number | null = null;
  try {
    const res = await request(url, {
      dispatcher: req.dispatcher,
      method: 'POST',
      headers: req.headers,
      body: req.body,
      signal: controller.signal,
    });
    status = res.statusCode;
    const body = await readCapped(res.body);
    // undici hands a keep-alive socket back to the pool one loop turn after the response ends
    // (setImmediate in client-h1); yielding once here lets the caller's next POST reuse it instead
    // of opening a second connection.
    await nextLoopTurn();
    const ok = status >= 200 && status < 300;
    return { ok, status, body, durationMs: elapsed() };
  } catch (err) {
    const code = timedOut ? 'timeout' : req.signal?.aborted ? 'aborted' : codeOf(err);
    const error = timedOut || req.signal?.aborted ? code : describeError(err);
    return { ok: false, status, error, code, durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener('abort', onAbort);
  }
}

async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let seen = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    seen += chunk.length;
    if (keptBytes < RESPONSE_BODY_CAP) {
      const part = chunk.subarray(0, RESPONSE_BODY_CAP - keptBytes);
      kept.push(part);
      keptBytes += part.length;
    }
    if (seen > DRAIN_LIMIT) {
      body.destroy(); // leaving the loop would do it too; explicit because it is the point
      break;
    }
  }
  return Buffer.concat(kept).toString('utf8');
}

function codeOf(err: unknown): string {
  if (!(err instanceof Error)) return 'UNKNOWN';
  const cause = err.cause instanceof Error ? (err.cause as NodeJS.ErrnoException).code : undefined;
  return (err as NodeJS.ErrnoException).code ?? cause ?? err.name;
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
    return `${code ?? err.name}: ${err.message}${cause}`;
  }
  return String(err);
}
