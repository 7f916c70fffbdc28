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
  const url = request.url;
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const params = (request.routeOptions.url ? request.params : {}) as Record<string, string>;
  const secrets = SECRET_PARAMS.filter((name) => params[name]).map((name) => params[name]);
  const segments = path.split('/');
  const byPrefix = secretSegment(segments);
  // Most requests carry no secret: their path is shown as it came, without decoding every segment.
  const shownPath =
    byPrefix === -1 && secrets.length === 0
      ? path
      : segments
          .map((segment, i) => (i === byPrefix || secrets.includes(decoded(segment)) ? ':token' : segment))
          .join('/');
  if (mark === -1) return shownPath;
  const names = url
    .slice(mark + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => `${pair.split('=', 1)[0]}=…`);
  return `${shownPath}?${names.join('&')}`;
}

/** The words a prefix of SECRET_PATHS can start with. */
const FIRST_WORDS = new Set(SECRET_PATHS.map((prefix) => prefix[0]!));

/** The longest prefix of SECRET_PATHS, plus the secret's own segment. */
const WORDS_READ = Math.max(...SECRET_PATHS.map((prefix) => prefix.length)) + 1;

/**
 * The index of the segment SECRET_PATHS redacts, or -1. Prefixes are compared as the router might
 * still have read them, or a person typed them: decoded, in any case, with empty segments (`//`)
 * skipped. Only the first few segments are read.
 */
function secretSegment(segments: string[]): number {
  const present: number[] = [];
  const words: string[] = [];
  for (let i = 0; i < segments.length && present.length < WORDS_READ; i++) {
    if (segments[i] === '') continue;
    present.push(i);
    words.push(decoded(segments[i]!).toLowerCase());
    // Most paths (every API call's `api`) start with a word no prefix starts with: read no further.
    if (words.length === 1 && !FIRST_WORDS.has(words[0]!)) return -1;
  }
  for (const prefix of SECRET_PATHS) {
    if (!prefix.every((word, i) => words[i] === word)) continue;
    return present[prefix.length] ?? -1;
  }
  return -1;
}

function decoded(segment: string): string {
  if (!segment.includes('%')) return segment;
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
