import { randomUUID } from 'node:crypto';

import { errorFromResponse } from './error-mapping.js';
import { StorefrontError } from './errors.js';
import { sendOnce, type RawResponse } from './http.js';
import { checkMaxRetries, checkTimeout, type RequestOptions, type ResolvedConfig } from './options.js';
import { Page, PagePromise } from './pagination.js';
import { isRetryable, retryDelayMs, sleep } from './retry.js';
import { VERSION } from '../version.js';
import type { ListEnvelope, WithResponse } from '../types/shared.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface RequestSpec {
  method: HttpMethod;
  /** Path under `/api/public/v1`, ids already encoded (see `path`). */
  path: string;
  /** Query parameters; undefined and null values are left out. */
  query?: object;
  /** JSON body. */
  body?: unknown;
  options?: RequestOptions | undefined;
}

/**
 * The one place that talks HTTP: URL and headers, idempotency keys, timeouts, the retry loop and
 * error mapping. Resources only describe requests.
 */
export class RequestCore {
  readonly #config: ResolvedConfig;
  readonly #userAgent = `storefront-node/${VERSION} node/${process.version}`;

  constructor(config: ResolvedConfig) {
    this.#config = config;
  }

  async request<Result>(spec: RequestSpec): Promise<WithResponse<Result>> {
    const options = spec.options ?? {};
    const timeout = checkTimeout(options.timeout ?? this.#config.timeout);
    const maxRetries = checkMaxRetries(options.maxRetries ?? this.#config.maxRetries);
    const url = this.#url(spec.path, spec.query);
    // Built once, so the retry carries the same Idempotency-Key and the service can replay.
    const init: RequestInit = {
      method: spec.method,
      headers: this.#headers(spec, options),
      body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
    };

    for (let attempt = 0; ; attempt++) {
      try {
        return parseSuccess<Result>(await sendChecked(url, init, timeout));
      } catch (error) {
        if (!(error instanceof StorefrontError) || attempt >= maxRetries || !isRetryable(error)) throw error;
        await sleep(retryDelayMs(error));
      }
    }
  }

  /**
   * A GET listing, returned as a lazily fetched, pageable PagePromise. `path` may be a function so
   * that an invalid id surfaces as a rejection, like every other failure, rather than a throw.
   */
  list<Item>(
    path: string | (() => string),
    params: object | undefined,
    options: RequestOptions | undefined,
  ): PagePromise<Item> {
    const fetchPage = async (cursor?: string): Promise<Page<Item>> => {
      const query = cursor === undefined ? params : { ...params, starting_after: cursor };
      const url = typeof path === 'string' ? path : path();
      const envelope = await this.request<ListEnvelope<Item>>({ method: 'GET', path: url, query, options });
      return new Page(envelope, fetchPage);
    };
    return new PagePromise(() => fetchPage());
  }

  #url(path: string, query: object | undefined): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value !== undefined && value !== null) search.append(key, String(value));
    }
    const queryString = search.toString();
    return this.#config.apiBase + path + (queryString ? `?${queryString}` : '');
  }

  #headers(spec: RequestSpec, options: RequestOptions): Record<string, string> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.#config.apiKey}`,
      Accept: 'application/json',
      'User-Agent': this.#userAgent,
    };
    if (spec.body !== undefined) headers['Content-Type'] = 'application/json';
    // Every POST carries a key, generated when the caller gave none, so a retry is safe.
    const idempotencyKey = options.idempotencyKey ?? (spec.method === 'POST' ? randomUUID() : undefined);
    if (idempotencyKey !== undefined) headers['Idempotency-Key'] = idempotencyKey;
    return headers;
  }
}

/** One attempt; a non-2xx answer is thrown as the matching APIError subclass. */
async function sendChecked(url: string, init: RequestInit, timeout: number): Promise<RawResponse> {
  const response = await sendOnce(url, init, timeout);
  if (response.status < 200 || response.status > 299) {
    throw errorFromResponse(response.status, response.headers, response.bodyText);
  }
  return response;
}

function parseSuccess<Result>(response: RawResponse): WithResponse<Result> {
  let result: WithResponse<Result>;
  try {
    result = JSON.parse(response.bodyText) as WithResponse<Result>;
  } catch {
    const requestId = response.headers.get('request-id');
    throw new StorefrontError(
      `Storefront: the service answered ${response.status} with a body that is not JSON` +
        (requestId ? ` (request ${requestId})` : ''),
    );
  }
  if (typeof result === 'object' && result !== null) {
    Object.defineProperty(result, 'lastResponse', {
      value: {
        statusCode: response.status,
        requestId: response.headers.get('request-id'),
        headers: Object.fromEntries(response.headers.entries()),
      },
      enumerable: false,
    });
  }
  return result;
}
