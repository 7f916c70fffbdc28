import { Pool } from 'undici';
import type { Dispatcher } from 'undici';
import { outboundConnector } from '../../../platform/outbound/agent.js';
import { describeTransportFailure, isBlockedAddress } from '../../../platform/outbound/transport-failure.js';
import { ProviderError } from '../provider-errors.js';

/** How to reach one store's Mercado Pago account (the access token already opened). */
export interface MercadoPagoConnection {
  accessToken: string;
  /** `https://api.mercadopago.com` unless the operator points elsewhere (a sandbox proxy, a test double). */
  baseUrl: string;
  /** Extra trust for the server's certificate; null: Node's bundled CAs. */
  caPem: string | null;
  connectTimeoutMs: number;
  /** The whole exchange: headers and body. */
  requestTimeoutMs: number;
  /**
   * Endpoints exempt from the public-address rule (STOREFRONT_PSP_ALLOWED_HOSTS): the base URL comes
   * from the store's owner, so every other connection must reach a public address.
   */
  allowedHosts: ReadonlySet<string>;
}

export interface MercadoPagoCall {
  /** Sent as `X-Idempotency-Key`: Mercado Pago answers a repeated key with the first result. */
  idempotencyKey?: string;
  body?: unknown;
}

export interface MercadoPagoTransport {
  /** A JSON call; anything but a 2xx with a JSON body throws ProviderError. */
  call<T>(method: Dispatcher.HttpMethod, path: string, options?: MercadoPagoCall): Promise<T>;
  close(): Promise<void>;
}

/**
 * One store's Mercado Pago account, one undici Pool on its origin: TLS verification on (plus the
 * operator's CA when given), the outbound address policy on every socket, keep-alive, connect and
 * request timeouts, `Authorization: Bearer <access token>`. Every failure becomes a ProviderError
 * naming what happened (Mercado Pago's own `message` and `cause` codes when it sent them); the token
 * never appears in one.
 */
export function createMercadoPagoTransport(connection: MercadoPagoConnection): MercadoPagoTransport {
  const base = new URL(connection.baseUrl);
  // A base URL with a path (a proxy's prefix) keeps it in front of every call's path.
  const prefix = base.pathname.replace(/\/+$/, '');
  const pool = new Pool(base.origin, {
    connect: outboundConnector(
      { allowedHosts: connection.allowedHosts },
      { ...(connection.caPem !== null && { ca: connection.caPem }), timeout: connection.connectTimeoutMs },
    ),
    connections: 16,
    keepAliveTimeout: 30_000,
  });
  const scrub = (text: string) =>
    connection.accessToken === '' ? text : text.split(connection.accessToken).join('<access token>');

  return {
    async call<T>(method: Dispatcher.HttpMethod, path: string, options: MercadoPagoCall = {}): Promise<T> {
      const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
      let status: number;
      let text: string;
      try {
        const res = await pool.request({
          method,
          path: `${prefix}${path}`,
          headers: {
            authorization: `Bearer ${connection.accessToken}`,
            accept: 'application/json',
            ...(payload !== undefined && { 'content-type': 'application/json' }),
            ...(options.idempotencyKey !== undefined && { 'x-idempotency-key': options.idempotencyKey }),
          },
          body: payload,
          signal: AbortSignal.timeout(connection.requestTimeoutMs),
        });
        status = res.statusCode;
        text = await res.body.text();
      } catch (error) {
        throw new ProviderError(
          scrub(
            `Mercado Pago could not be reached at ${base.origin}: ${describeTransportFailure(error, connection)}.`,
          ),
          null,
          {},
          isBlockedAddress(error),
        );
      }
      if (status < 200 || status > 299) {
        throw new ProviderError(
          scrub(`Mercado Pago answered ${method} ${path} with ${problemOf(status, text)}.`),
          status,
        );
      }
      const parsed = parseJson(text);
      if (parsed === undefined) {
        throw new ProviderError(
          `Mercado Pago answered ${method} ${path} with a body that is not JSON.`,
          status,
        );
      }
      return parsed as T;
    },
    close: () => pool.close(),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `400 bad_request: "Invalid card_token_id" (causes 3003)`, from Mercado Pago's error body. */
function problemOf(status: number, text: string): string {
  const error = parseJson(text) as { message?: unknown; error?: unknown; cause?: unknown } | undefined;
  if (!error || typeof error !== 'object') return `HTTP ${status}`;
  const name = typeof error.error === 'string' ? ` ${error.error}` : '';
  const message = typeof error.message === 'string' ? `: "${error.message}"` : '';
  const causes = Array.isArray(error.cause)
    ? error.cause
        .map((c: { code?: unknown; description?: unknown }) =>
          [c.code, c.description].filter((part) => part !== undefined && part !== null).join(' '),
        )
        .filter((c) => c !== '')
        .join('; ')
    : '';
  return `${status}${name}${message}${causes ? ` (causes: ${causes})` : ''}`.slice(0, 600);
}
