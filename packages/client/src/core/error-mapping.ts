import {
  APIError,
  AuthenticationError,
  NotFoundError,
  RateLimitError,
  ServerError,
  ValidationError,
  type APIErrorInit,
} from './errors.js';

const BODY_SNIPPET_LENGTH = 200;

/** Builds the error for a non-2xx response; the body may be anything, a proxy's HTML page included. */
export function errorFromResponse(status: number, headers: Headers, bodyText: string): APIError {
  const body = parseErrorBody(bodyText);
  const init: APIErrorInit = {
    status,
    code: body.code,
    message: body.message ?? fallbackMessage(status, bodyText),
    param: body.param,
    requestId: body.requestId ?? headers.get('request-id'),
    headers,
  };
  if (status === 401 || status === 403) return new AuthenticationError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 429) return new RateLimitError({ ...init, retryAfter: parseRetryAfter(headers) });
  if (status >= 500) return new ServerError(init);
  if (status >= 400) return new ValidationError(init);
  // Redirects are not followed (they could carry the key elsewhere), so a 3xx lands here.
  return new APIError(init);
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(headers: Headers): number | null {
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

interface ErrorBody {
  code: string | null;
  message: string | null;
  param: string | null;
  requestId: string | null;
}

// Wire shape: {"error":{"code","message","param","request_id"}}.
function parseErrorBody(text: string): ErrorBody {
  const empty: ErrorBody = { code: null, message: null, param: null, requestId: null };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return empty;
  }
  if (!isRecord(parsed) || !isRecord(parsed.error)) return empty;
  const error = parsed.error;
  return {
    code: stringOrNull(error.code),
    message: stringOrNull(error.message),
    param: stringOrNull(error.param),
    requestId: stringOrNull(error.request_id),
  };
}

function fallbackMessage(status: number, bodyText: string): string {
  const snippet = bodyText.trim().slice(0, BODY_SNIPPET_LENGTH);
  return snippet
    ? `Request failed with status ${status}: ${snippet}`
    : `Request failed with status ${status}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
