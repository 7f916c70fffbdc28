import type { StoresTable } from '../../domain/stores/stores.js';
import { widenCsp } from '../../platform/html/page-security.js';

/**
 * Meta's browser pixel on a store's product pages, when its owner turned it on: the visit (PageView).
 * Never on an order page: its URL is the buyer's key to the order, and a pixel sends the page's URL to
 * Meta; the order's InitiateCheckout and the sale's Purchase go from the server (Conversions API)
 * instead. Only that store's pages load it, and only they get the wider CSP.
 */

/** Where the pixel's script comes from, and where it reports to (Meta's two origins). */
export const META_SCRIPT_ORIGIN = 'https://connect.facebook.net';
export const META_REPORT_ORIGIN = 'https://www.facebook.com';
const PIXEL_SCRIPT = `${META_SCRIPT_ORIGIN}/en_US/fbevents.js`;

interface PixelConfig {
  pixelId: string;
  script: string;
}

/** The store's pixel, when its pages should carry it. */
export function browserPixelOf(
  store: Pick<StoresTable, 'meta_pixel_id' | 'meta_browser_pixel'>,
): string | null {
  return store.meta_browser_pixel === 1 ? store.meta_pixel_id : null;
}

/**
 * Runs in the buyer's browser (serialised with its config into the page's nonce'd script): Meta's
 * standard loader, then the visit. Typed here so the compiler checks it like the rest.
 */
function bootMetaPixel(config: PixelConfig): void {
  type Fbq = ((...args: unknown[]) => void) & {
    callMethod?: (...args: unknown[]) => void;
    queue: unknown[];
    push: unknown;
    loaded: boolean;
    version: string;
  };
  const w = window as unknown as { fbq?: Fbq; _fbq?: Fbq };
  if (!w.fbq) {
    // Meta's loader: calls queue until fbevents.js arrives and takes them over.
    const fbq = function (...args: unknown[]) {
      if (fbq.callMethod) fbq.callMethod(...args);
      else fbq.queue.push(args);
    } as Fbq;
    fbq.queue = [];
    fbq.push = fbq;
    fbq.loaded = true;
    fbq.version = '2.0';
    w.fbq = w._fbq = fbq;
    const script = document.createElement('script');
    script.async = true;
    script.src = config.script;
    document.head.append(script);
  }
  w.fbq('init', config.pixelId);
  w.fbq('track', 'PageView');
}

/** JSON safe inside a script element: no `<` to end it early, no line separators. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The page's pixel script, under its nonce. */
function metaPixelScript(nonce: string, pixelId: string): string {
  const full: PixelConfig = { pixelId, script: PIXEL_SCRIPT };
  return `<script nonce="${nonce}">(${bootMetaPixel.toString()})(${scriptJson(full)});</script>`;
}

/** The page's CSP with Meta's script and report origins added where the pixel needs them. */
function metaPixelCsp(csp: string): string {
  return widenCsp(csp, {
    'script-src': [META_SCRIPT_ORIGIN],
    'connect-src': [META_REPORT_ORIGIN, META_SCRIPT_ORIGIN],
    'img-src': [META_REPORT_ORIGIN],
  });
}

/**
 * A rendered product page with the pixel: its script before `</body>` and its CSP widened. Pages of a
 * store without the browser pixel pass through unchanged.
 */
export function withMetaPixel(
  page: { html: string; csp: string; nonce: string },
  pixelId: string | null,
): { html: string; csp: string } {
  if (pixelId === null) return page;
  const script = metaPixelScript(page.nonce, pixelId);
  const at = page.html.lastIndexOf('</body>');
  return {
    html: at < 0 ? page.html + script : page.html.slice(0, at) + script + page.html.slice(at),
    csp: metaPixelCsp(page.csp),
  };
}
