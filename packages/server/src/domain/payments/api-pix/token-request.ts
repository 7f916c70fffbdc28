/**
 * The shape of a PSP's OAuth2 token request (client credentials). The API Pix standard names OAuth2
 * but not its details, and PSPs differ: where the client's credentials go (HTTP Basic or the body),
 * whether a `scope` must be asked for, how the body is encoded, and extra parameters some require.
 */
export interface TokenRequestShape {
  /** Space-separated scopes to ask for; null sends none (the PSP grants the application's own). */
  scope: string | null;
  /** `basic`: client id and secret in HTTP Basic. `body`: `client_id` (and `client_secret`, when there is one) in the body. */
  auth: TokenAuth;
  /** `form`: application/x-www-form-urlencoded (RFC 6749). `json`: a JSON object. */
  format: TokenFormat;
  /** Extra body parameters, after the standard ones. */
  params: Record<string, string>;
}

export const TOKEN_AUTHS = ['basic', 'body'] as const;
export type TokenAuth = (typeof TOKEN_AUTHS)[number];
export const TOKEN_FORMATS = ['form', 'json'] as const;
export type TokenFormat = (typeof TOKEN_FORMATS)[number];

/** What RFC 6749 asks for: Basic, form-encoded, no scope. */
export const STANDARD_TOKEN_REQUEST: TokenRequestShape = {
  scope: null,
  auth: 'basic',
  format: 'form',
  params: {},
};

/** Set by the transport from the settings: an extra parameter may not replace them. */
const RESERVED_PARAMS = new Set(['grant_type', 'scope', 'client_id', 'client_secret']);
const PARAM_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
// Printable ASCII without spaces at the ends: what a form field and a JSON string both carry as is.
const SCOPE = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

/** `k=v` options (repeatable `--token-param`) as an object. Throws an Error naming the option. */
export function parseTokenParams(pairs: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    const name = equals < 0 ? pair : pair.slice(0, equals);
    if (equals < 0 || !PARAM_NAME.test(name)) {
      throw new Error(`--token-param must be name=value with a name of A-Z a-z 0-9 _ . - (got "${pair}")`);
    }
    if (RESERVED_PARAMS.has(name)) {
      throw new Error(
        `--token-param ${name} is set by Storefront: use --scope for the scope and --token-auth body to send the client id and secret in the body`,
      );
    }
    if (name in params) throw new Error(`--token-param ${name} is given twice`);
    params[name] = pair.slice(equals + 1);
  }
  return params;
}

/** Throws an Error naming the option when a scope is not space-separated printable words. */
export function checkScope(scope: string): string {
  const trimmed = scope.trim();
  if (!SCOPE.test(trimmed)) {
    throw new Error(
      `--scope must be scopes separated by single spaces, e.g. "cob.write cob.read" (got "${scope}")`,
    );
  }
  return trimmed;
}

/** The headers and body of the token request for these credentials and shape. */
export function tokenRequest(
  shape: TokenRequestShape,
  client: { clientId: string; clientSecret: string },
): { headers: Record<string, string>; body: string } {
  const fields: Record<string, string> = { grant_type: 'client_credentials' };
  const headers: Record<string, string> = {
    'content-type': shape.format === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
    accept: 'application/json',
  };
  if (shape.auth === 'basic') {
    headers.authorization = `Basic ${Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64')}`;
  } else {
    fields.client_id = client.clientId;
    // Some PSPs (Sicoob) authenticate the client by its certificate alone: no secret to send.
    if (client.clientSecret !== '') fields.client_secret = client.clientSecret;
  }
  if (shape.scope !== null) fields.scope = shape.scope;
  Object.assign(fields, shape.params);
  return {
    headers,
    body: shape.format === 'json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString(),
  };
}
