import { LogController } from 'fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * A path parameter named `token` is a secret (an order page's token, a PSP callback's): its value is
 * logged as `:token`. Query values may be secrets too (a key pasted into a URL): only their names are
 * logged.
 */
const SECRET_PARAMS = ['token'];

/**
 * Paths that carry a secret after a known prefix, redacted whether or not a route matches: a 404 on a
 * mistyped or outdated link (`/p/o/<key>/x`, a callback URL with a stray suffix) keeps its token too.
 * The segment right after the prefix is the secret.
 */
const SECRET_PATHS: string[][] = [
  ['p', 'o'], // an order page: its URL is the buyer's key
  ['p', '3ds'], // a card payment's 3-D Secure page: its URL is the key to authenticate it
  ['callbacks', 'pix'], // the PSP callback token
  ['callbacks', 'card'], // the card PSP's notification token
  ['dashboard', 'convite'], // an invite link
  ['dashboard', 'login', 'redefinir'], // a password-reset link
];

/** The request's path and query as the access log shows them, without the secrets they may carry. */
export function loggedUrl(request: FastifyRequest): string {
  const [path = '', query] = request.url.split('?', 2) as [string, string | undefined];
  const params = (request.routeOptions.url ? request.params : {}) as Record<string, string>;
  const secrets = new Set(SECRET_PARAMS.filter((name) => params[name]).map((name) => params[name]));
  const segments = path.split('/');
  const byPrefix = secretSegments(segments);
  const shownPath = segments
    .map((segment, i) => (byPrefix.has(i) || secrets.has(decoded(segment)) ? ':token' : segment))
    .join('/');
  if (query === undefined) return shownPath;
  const names = query
    .split('&')
    .filter(Boolean)
    .map((pair) => `${pair.split('=', 1)[0]}=…`);
  return `${shownPath}?${names.join('&')}`;
}

/**
 * The indexes of the segments SECRET_PATHS redacts. Prefixes are compared as the router might still
 * have read them, or a person typed them: decoded, in any case, with empty segments (`//`) skipped.
 */
function secretSegments(segments: string[]): Set<number> {
  const present = segments.flatMap((segment, i) => (segment === '' ? [] : [i]));
  const words = present.map((i) => decoded(segments[i]!).toLowerCase());
  for (const prefix of SECRET_PATHS) {
    if (!prefix.every((word, i) => words[i] === word)) continue;
    return new Set(present.slice(prefix.length, prefix.length + 1));
  }
  return new Set();
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * One access line per request, written when it completes, instead of Fastify's two ("incoming
 * request" and "request completed"): request logging was a quarter of a GET's CPU in the benchmarks.
 * It names the route's pattern too, so lines of one operation group together.
 */
export class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: loggedUrl(request),
      route: request.routeOptions.url ?? null,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
