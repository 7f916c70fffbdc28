import { Agent, request } from 'undici';
import type { Dispatcher } from 'undici';
import { outboundConnector } from '../../../platform/outbound/agent.js';
import { describeTransportFailure, isBlockedAddress } from '../../../platform/outbound/transport-failure.js';
import { ProviderError } from '../provider-errors.js';
import { tokenRequest } from './token-request.js';
import type { TokenRequestShape } from './token-request.js';

/** Everything needed to talk to one PSP's API Pix on behalf of one store (secrets already opened). */
export interface ApiPixCredentials {
  /** `https://…/v2`, no trailing slash. */
  baseUrl: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  tls: { cert: string; key: string } | { pfx: Buffer; passphrase: string | null };
  /** Extra trust for the PSP's server certificate; null: Node's bundled CAs. */
  ca: string | null;
  tokenRequest: TokenRequestShape;
}

export interface TransportOptions {
  connectTimeoutMs: number;
  /** The whole exchange: headers and body. */
  requestTimeoutMs: number;
  /**
   * PSP endpoints exempt from the public-address rule (STOREFRONT_PSP_ALLOWED_HOSTS): the URLs come
   * from the store's owner, so every other connection must reach a public address.
   */
  allowedHosts: ReadonlySet<string>;
}

export interface ApiPixResponse<T> {
  status: number;
  body: T;
}

export interface ApiPixTransport {
  /** A call with a bearer token; a 401 renews the token once and retries the call once. */
  call<T>(method: Dispatcher.HttpMethod, path: string, body?: unknown): Promise<ApiPixResponse<T>>;
  close(): Promise<void>;
}

/** The token is renewed this long before the PSP says it expires, so a call never carries a stale one. */
const TOKEN_MARGIN_MS = 60_000;

/**
 * One PSP, one undici Agent: mTLS with the store's client certificate on every call (token included),
 * TLS verification on, the outbound address policy, keep-alive, connect and request timeouts, OAuth2
 * client credentials in the PSP's shape (HTTP Basic by default, see token-request.ts), the token
 * cached until 60 s before its expiry. Every failure becomes a ProviderError naming what happened (the
 * PSP's problem+json `title`/`detail` when it sent one).
 */
export function createApiPixTransport(
  credentials: ApiPixCredentials,
  options: TransportOptions,
): ApiPixTransport {
  const { tls } = credentials;
  const agent = new Agent({
    // The outbound address policy on every socket, token request included, checked where it connects.
    connect: outboundConnector(
      { allowedHosts: options.allowedHosts },
      {
        ...('pfx' in tls
          ? { pfx: tls.pfx, ...(tls.passphrase !== null && { passphrase: tls.passphrase }) }
          : tls),
        ...(credentials.ca !== null && { ca: credentials.ca }),
        timeout: options.connectTimeoutMs,
      },
    ),
    connections: 16,
    keepAliveTimeout: 30_000,
  });
  let token: { value: string; renewAt: number } | null = null;
  let pendingToken: Promise<string> | null = null;

  async function send(
    method: Dispatcher.HttpMethod,
    url: string,
    headers: Record<string, string>,
    body: string | undefined,
  ): Promise<{ status: number; contentType: string; text: string }> {
    try {
      const res = await request(url, {
        dispatcher: agent,
        method,
        headers,
        body,
        signal: AbortSignal.timeout(options.requestTimeoutMs),
      });
      const text = await res.body.text();
      return { status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), text };
    } catch (error) {
      throw new ProviderError(
        `The PSP could not be reached at ${new URL(url).origin}: ${describe(error, options)}.`,
        null,
        {},
        isBlockedAddress(error),
      );
    }
  }

  async function fetchToken(): Promise<string> {
    const { headers, body } = tokenRequest(credentials.tokenRequest, credentials);
    const res = await send('POST', credentials.tokenUrl, headers, body);
    if (res.status < 200 || res.status > 299) {
      throw new ProviderError(
        `The PSP refused our credentials (token endpoint): ${problemOf(res)}.`,
        res.status,
      );
    }
    const parsed = parseJson(res.text) as { access_token?: unknown; expires_in?: unknown } | undefined;
    if (typeof parsed?.access_token !== 'string' || parsed.access_token === '') {
      throw new ProviderError('The PSP token endpoint answered without an access_token.', res.status);
    }
    const expiresInMs = (typeof parsed.expires_in === 'number' ? parsed.expires_in : 3600) * 1000;
    token = { value: parsed.access_token, renewAt: Date.now() + expiresInMs - TOKEN_MARGIN_MS };
    return parsed.access_token;
  }

  /** One token request at a time: concurrent calls share the request in flight. */
  function currentToken(): Promise<string> {
    if (token && Date.now() < token.renewAt) return Promise.resolve(token.value);
    pendingToken ??= fetchToken().finally(() => {
      pendingToken = null;
    });
    return pendingToken;
  }

  return {
    async call<T>(method: Dispatcher.HttpMethod, path: string, body?: unknown): Promise<ApiPixResponse<T>> {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      for (let attempt = 1; ; attempt++) {
        const bearer = await currentToken();
        const res = await send(
          method,
          `${credentials.baseUrl}${path}`,
          {
            authorization: `Bearer ${bearer}`,
            accept: 'application/json',
            ...(payload !== undefined && { 'content-type': 'application/json' }),
          },
          payload,
        );
        if (res.status === 401 && attempt === 1) {
          // Revoked or expired early at the PSP: one fresh token, one more try.
          if (token?.value === bearer) token = null;
          continue;
        }
        if (res.status >= 200 && res.status <= 299) {
          return { status: res.status, body: (res.text === '' ? undefined : parseJson(res.text)) as T };
        }
        throw new ProviderError(`The PSP answered ${method} ${path} with ${problemOf(res)}.`, res.status);
      }
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
 * `400 CobOperacaoInvalida: "Cobrança inválida." — detail (cob.valor.original: razão)`, from RFC 7807;
 * `400 invalid_scope: "description"` from an OAuth2 token endpoint's error (RFC 6749 §5.2).
 */
function problemOf(res: { status: number; text: string }): string {
  const problem = parseJson(res.text) as
    | {
        type?: unknown;
        title?: unknown;
        detail?: unknown;
        violacoes?: unknown;
        error?: unknown;
        error_description?: unknown;
      }
    | undefined;
  if (typeof problem?.error === 'string' && typeof problem.title !== 'string') {
    const description =
      typeof problem.error_description === 'string' ? `: "${problem.error_description}"` : '';
    return `${res.status} ${problem.error}${description}`.slice(0, 600);
  }
  if (!problem || typeof problem.title !== 'string') return `HTTP ${res.status}`;
  const type = typeof problem.type === 'string' ? ` ${problem.type.split('/').pop()}` : '';
  const detail = typeof problem.detail === 'string' ? ` — ${problem.detail}` : '';
  const violations = Array.isArray(problem.violacoes)
    ? problem.violacoes
        .map(
          (v: { propriedade?: unknown; razao?: unknown }) => `${String(v.propriedade)}: ${String(v.razao)}`,
        )
        .join('; ')
    : '';
  return `${res.status}${type}: "${problem.title}"${detail}${violations ? ` (${violations})` : ''}`.slice(
    0,
    600,
  );
}

/** The failure's description, with a hint where a refused client certificate is the likely cause. */
function describe(error: unknown, options: TransportOptions): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  // A PSP that rejects the client certificate just closes the connection during the handshake.
  const hint =
    code === 'UND_ERR_SOCKET' || code === 'ECONNRESET'
      ? ' — if this repeats, the PSP may be refusing the client certificate (check it with `pix-provider check`)'
      : '';
  return `${describeTransportFailure(error, options)}${hint}`;
}
