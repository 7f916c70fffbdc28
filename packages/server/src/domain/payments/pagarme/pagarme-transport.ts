import { Agent, request } from 'undici';
import type { Dispatcher } from 'undici';
import { outboundConnector } from '../../../platform/outbound/agent.js';
import { describeTransportFailure, isBlockedAddress } from '../../../platform/outbound/transport-failure.js';
import { ProviderError } from '../provider-errors.js';

/** One store's Pagar.me account, as the transport needs it (the secret already opened). */
export interface PagarmeConnection {
  /** `https://api.pagar.me/core/v5` unless the operator named another; no trailing slash. */
  baseUrl: string;
  /** `sk_…` (live) or `sk_test_…` (test): the Basic auth user name, with an empty password. */
  secretKey: string;
  /** Extra trust for the API's certificate; null: Node's bundled CAs. */
  caPem: string | null;
  connectTimeoutMs: number;
  /** The whole exchange: headers and body. */
  requestTimeoutMs: number;
  /**
   * Endpoints exempt from the public-address rule (STOREFRONT_PSP_ALLOWED_HOSTS): the base URL may
   * come from the store's owner, so unless the operator allowed it, it must reach a public address.
   */
  allowedHosts: ReadonlySet<string>;
}

export interface PagarmeCall {
  body?: unknown;
  /** Pagar.me keeps the first answer to a key for 24 hours: a retry gets it, never a second charge. */
  idempotencyKey?: string;
}

export interface PagarmeTransport {
  /** A JSON call; a 2xx answers the parsed body, anything else throws ProviderError. */
  call<T>(method: Dispatcher.HttpMethod, path: string, options?: PagarmeCall): Promise<T>;
  close(): Promise<void>;
}

/**
 * Pagar.me's Core API v5 over one undici Agent: TLS verification on (with the operator's extra CA
 * when given), the outbound address policy on every socket, keep-alive, connect and request
 * timeouts, HTTP Basic with the secret key and an empty password. Every failure (no answer, TLS, a
 * non-2xx, a body that is not JSON) becomes a ProviderError naming what Pagar.me said; the secret
 * key is never part of a message.
 */
export function createPagarmeTransport(connection: PagarmeConnection): PagarmeTransport {
  const agent = new Agent({
    connect: outboundConnector(
      { allowedHosts: connection.allowedHosts },
      {
        ...(connection.caPem !== null && { ca: connection.caPem }),
        timeout: connection.connectTimeoutMs,
      },
    ),
    connections: 16,
    keepAliveTimeout: 30_000,
  });
  const authorization = `Basic ${Buffer.from(`${connection.secretKey}:`).toString('base64')}`;
  const origin = new URL(connection.baseUrl).origin;
  /** Belt and braces: whatever a lower layer put in a message, the key never leaves this module. */
  const redact = (text: string) =>
    connection.secretKey === '' ? text : text.split(connection.secretKey).join('[secret key]');

  return {
    async call<T>(method: Dispatcher.HttpMethod, path: string, options: PagarmeCall = {}): Promise<T> {
      const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
      let status: number;
      let text: string;
      try {
        const res = await request(`${connection.baseUrl}${path}`, {
          dispatcher: agent,
          method,
          headers: {
            authorization,
            accept: 'application/json',
            ...(payload !== undefined && { 'content-type': 'application/json' }),
            ...(options.idempotencyKey !== undefined && { 'idempotency-key': options.idempotencyKey }),
          },
          body: payload,
          signal: AbortSignal.timeout(connection.requestTimeoutMs),
        });
        status = res.statusCode;
        text = await res.body.text();
      } catch (error) {
        throw new ProviderError(
          redact(
            `Pagar.me could not be reached at ${origin}: ${describeTransportFailure(error, connection)}.`,
          ),
          null,
          {},
          isBlockedAddress(error),
        );
      }
      const parsed = parseJson(text);
      if (status < 200 || status > 299) {
        throw new ProviderError(
          redact(`Pagar.me answered ${method} ${path} with ${problemOf(status, parsed)}.`),
          status,
        );
      }
      if (parsed === undefined || parsed === null || typeof parsed !== 'object') {
        throw new ProviderError(
          `Pagar.me answered ${method} ${path} with ${status} and no JSON object.`,
          status,
        );
      }
      return parsed as T;
    },
    close: () => agent.close(),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * `422: "The request is invalid." (order.customer.name: The name field is required.)`: Pagar.me's
 * error body is `{message, errors?}`, `errors` a map of field to messages.
 */
function problemOf(status: number, body: unknown): string {
  const problem = body as { message?: unknown; errors?: unknown } | undefined;
  if (typeof problem?.message !== 'string') return `HTTP ${status}`;
  const errors =
    problem.errors !== null && typeof problem.errors === 'object'
      ? Object.entries(problem.errors as Record<string, unknown>)
          .map(
            ([field, messages]) =>
              `${field}: ${Array.isArray(messages) ? messages.join(' ') : String(messages)}`,
          )
          .join('; ')
      : '';
  return `${status}: "${problem.message}"${errors ? ` (${errors})` : ''}`.slice(0, 600);
}
