import type { FastifyReply, FastifyRequest } from 'fastify';
import { pooledRandomBytes } from '../values/random-pool.js';

/** A fresh nonce per page: only the page's own script and style run. */
export function newNonce(): string {
  return pooledRandomBytes(16).toString('base64');
}

/**
 * Who may show a page in a frame: nobody, or (the dashboard's checkout preview only) pages of this
 * origin.
 */
export type Framing = 'none' | 'self';

/**
 * Nothing but this service's own script and style, and images from this page's own merchant image
 * origins (plus data: for the QR code). No framing, no plugins, no forms elsewhere. The origins are
 * of URLs `httpUrl` let through, whose hosts cannot split a directive.
 *
 * `connect`: what the page's script may fetch, as connectSources makes it (nothing for an empty list);
 * without it, this origin (the dashboard's own pages).
 * `preview`: the dashboard's preview of a purchase page, framed by the dashboard: it may be framed by
 * this origin, and it sends nothing anywhere (no form submits, no fetch), so it can take no order.
 * `framesPreview`: the page holding that frame (the checkout editor) may frame this origin's pages.
 */
export function pageCsp(
  nonce: string,
  imageOrigins: readonly string[],
  options: { preview?: boolean; framesPreview?: boolean; connect?: readonly string[] } = {},
): string {
  const { preview = false, framesPreview = false, connect } = options;
  const connectSources = preview || connect?.length === 0 ? ["'none'"] : (connect ?? ["'self'"]);
  return [
    "default-src 'none'",
    "base-uri 'none'",
    ...(framesPreview ? ["frame-src 'self'"] : []),
    `connect-src ${connectSources.join(' ')}`,
    `form-action ${preview ? "'none'" : "'self'"}`,
    `frame-ancestors ${preview ? "'self'" : "'none'"}`,
    ['img-src', "'self'", 'data:', ...imageOrigins].join(' '),
    "object-src 'none'",
    `script-src 'nonce-${nonce}'`,
    "script-src-attr 'none'",
    `style-src 'self' 'nonce-${nonce}'`,
  ].join('; ');
}

/**
 * A CSP with more sources in some directives (a directive it lacks is added): a store's Meta pixel, or
 * its card PSP's script and frames. `'none'` cannot stand beside a source, so it goes.
 */
export function widenCsp(csp: string, extra: Record<string, readonly string[]>): string {
  const directives = csp.split('; ');
  const names = new Set(directives.map((directive) => directive.split(' ')[0]!));
  const widened = directives.map((directive) => {
    const name = directive.split(' ')[0]!;
    if (!extra[name]?.length) return directive;
    return [...directive.split(' ').filter((source) => source !== "'none'"), ...extra[name]].join(' ');
  });
  for (const [name, sources] of Object.entries(extra))
    if (!names.has(name) && sources.length) widened.push([name, ...sources].join(' '));
  return widened.join('; ');
}

/**
 * The headers every page carries, with its CSP (`framing` must agree with its frame-ancestors). `no-referrer` by default; a page whose plain HTML
 * forms POST back (the dashboard) needs `same-origin`, as browsers send `Origin: null` on a form
 * POST from a no-referrer page, and the same-origin check needs the real origin.
 */
export function sendHtml(
  reply: FastifyReply,
  status: number,
  csp: string,
  html: string,
  referrerPolicy: 'no-referrer' | 'same-origin' = 'no-referrer',
  framing: Framing = 'none',
): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': csp,
      'cache-control': 'no-store',
      'referrer-policy': referrerPolicy,
      'x-content-type-options': 'nosniff',
      // For browsers without CSP frame-ancestors; it must agree with the CSP's.
      'x-frame-options': framing === 'self' ? 'SAMEORIGIN' : 'DENY',
    })
    .send(html);
}

/**
 * A host a CSP source can name: letters, digits, hyphens and dots, or an IP address. URL parsing lets
 * `,` `;` and other characters into a host name; in the CSP header they would end the `img-src`
 * directive (`;`) or start another policy (`,`).
 */
const CSP_HOST = /^(?:[a-z0-9-]+\.)*[a-z0-9-]+$|^\[[0-9a-f:.]+\]$/;

/**
 * A URL a page may load or link to: http(s) with a host a CSP can name; anything else (javascript:,
 * data:, relative, a host with `;` or `,`) is dropped.
 */
export function httpUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    return CSP_HOST.test(url.hostname) ? url.href : null;
  } catch {
    return null;
  }
}

/** An origin a CSP can name: http(s), a host of CSP_HOST's letters (or an IPv6 literal), a port. */
const CSP_ORIGIN = /^https?:\/\/(?:(?:[a-z0-9-]+\.)*[a-z0-9-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * `connect-src` sources for exactly these paths of the page's own origin (as the browser addressed
 * it), e.g. an order page's status stream: a path ending in `/` covers what lies under it. `'self'`
 * would let a page's script reach every path of the origin, the dashboard included. Empty when the
 * origin cannot be named in a CSP (a malformed Host): the page then fetches nothing.
 */
export function connectSources(request: FastifyRequest, paths: readonly string[]): string[] {
  const origin = `${request.protocol}://${request.host.toLowerCase()}`;
  if (!CSP_ORIGIN.test(origin)) return [];
  // `;` and `,` would end the directive or the policy; CSP matching decodes the path before comparing.
  return paths.map((path) => origin + path.replace(/[^A-Za-z0-9/._~%-]/g, encodeURIComponent));
}

/**
 * A POST from a page must come from a page of this service: the Origin header (which browsers always
 * send on such requests) must be the public origin or the origin the request was addressed to.
 */
export function isSameOrigin(request: FastifyRequest, publicUrl: string): boolean {
  const origin = request.headers.origin;
  if (!origin) return false;
  return origin === publicUrl || origin === `${request.protocol}://${request.headers.host}`;
}
