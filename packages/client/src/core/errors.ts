/** Base class of every error this library throws. */
export class StorefrontError extends Error {
  override readonly name: string = 'StorefrontError';
}

export interface APIErrorInit {
  status: number;
  code: string | null;
  message: string;
  param: string | null;
  requestId: string | null;
  headers: Headers;
}

// Brands survive the dual-package hazard: an error thrown by the CommonJS build is not an
// `instanceof` the ES module build's classes, but the predicates still recognise it.
const API_ERROR = Symbol.for('@storefront/client:APIError');
const TIMEOUT_ERROR = Symbol.for('@storefront/client:TimeoutError');

/** The service answered with a non-2xx status. */
export class APIError extends StorefrontError {
  override readonly name: string = 'APIError';
  readonly [API_ERROR] = true;
  /** HTTP status code. */
  readonly status: number;
  /** Machine-readable code from the error body (`invalid_request`, `not_found`…), or null. */
  readonly code: string | null;
  /** The field at fault, when the service names one. */
  readonly param: string | null;
  /** `req_…` id from the error body or the `Request-Id` header; quote it when asking for support. */
  readonly requestId: string | null;
  readonly headers: Headers;

  constructor(init: APIErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.param = init.param;
    this.requestId = init.requestId;
    this.headers = init.headers;
  }
}

/** 401 (missing, invalid or revoked key) and 403 (the key lacks a scope). */
export class AuthenticationError extends APIError {
  override readonly name: string = 'AuthenticationError';
}

/** 400, 409 and every other 4xx not covered by a more specific class. */
export class ValidationError extends APIError {
  override readonly name: string = 'ValidationError';
}

/** 404: the resource does not exist or belongs to another store. */
export class NotFoundError extends APIError {
  override readonly name: string = 'NotFoundError';
}

/** 429. `retryAfter` is the server's `Retry-After` in seconds, or null when absent. */
export class RateLimitError extends APIError {
  override readonly name: string = 'RateLimitError';
  readonly retryAfter: number | null;

  constructor(init: APIErrorInit & { retryAfter: number | null }) {
    super(init);
    this.retryAfter = init.retryAfter;
  }
}

/** 5xx. */
export class ServerError extends APIError {
  override readonly name: string = 'ServerError';
}

/** The request never got an HTTP response: DNS failure, refused or reset connection… */
export class NetworkError extends StorefrontError {
  override readonly name: string = 'NetworkError';
}

/** No complete response arrived within the timeout. */
export class TimeoutError extends StorefrontError {
  override readonly name: string = 'TimeoutError';
  readonly [TIMEOUT_ERROR] = true;
  /** The timeout that expired, in milliseconds. */
  readonly timeout: number;

  constructor(timeout: number) {
    super(`Request timed out after ${timeout} ms`);
    this.timeout = timeout;
  }
}

export function isApiError(error: unknown): error is APIError {
  return error instanceof APIError || hasBrand(error, API_ERROR);
}

export function isTimeout(error: unknown): error is TimeoutError {
  return error instanceof TimeoutError || hasBrand(error, TIMEOUT_ERROR);
}

function hasBrand(error: unknown, brand: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[brand] === true;
}
