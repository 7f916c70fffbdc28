import { orderItems } from '../../domain/orders/order-object.js';
import type { OrdersTable } from '../../domain/orders/order-object.js';
import type { StoresTable } from '../../domain/stores/stores.js';

/**
 * Meta's browser pixel on a store's purchase pages, when its owner turned it on: the same events as the
 * server sends, under the same `event_id`s (the order's for InitiateCheckout, the sale's for
 * Purchase), so Meta counts each once. Only that store's pages load it, and only they get the wider CSP.
 */

/** Where the pixel's script comes from, and where it reports to (Meta's two origins). */
export const META_SCRIPT_ORIGIN = 'https://connect.facebook.net';
export const META_REPORT_ORIGIN = 'https://www.facebook.com';
const PIXEL_SCRIPT = `${META_SCRIPT_ORIGIN}/en_US/fbevents.js`;

interface PixelEvent {
  name: 'PageView' | 'InitiateCheckout' | 'Purchase';
  eventId?: string;
  data?: Record<string, unknown>;
}

export interface PixelConfig {
  pixelId: string;
  script: string;
  events: PixelEvent[];
  /**
   * An unpaid order page: when the page turns paid (`#order[data-status]`), its `status` URL names
   * the sale, and Purchase goes with that id.
   */
  purchaseOnPaid: { statusUrl: string; data: Record<string, unknown> } | null;
}

/** A product page's events: the visit only (its order does not exist yet). */
export const PAGE_VIEW_PIXEL: Omit<PixelConfig, 'script' | 'pixelId'> = {
  events: [{ name: 'PageView' }],
  purchaseOnPaid: null,
};

/** The store's pixel, when its pages should carry it. */
export function browserPixelOf(
  store: Pick<StoresTable, 'meta_pixel_id' | 'meta_browser_pixel'>,
): string | null {
  return store.meta_browser_pixel === 1 ? store.meta_pixel_id : null;
}

/** What Meta's InitiateCheckout and Purchase carry, as the server's custom_data. */
export function pixelOrderData(order: {
  amountCents: number;
  productIds: string[];
}): Record<string, unknown> {
  return {
    currency: 'BRL',
    value: order.amountCents / 100,
    content_ids: order.productIds,
    content_type: 'product',
  };
}

/**
 * Runs in the buyer's browser (serialised with its config into the page's nonce'd script): Meta's
 * standard loader, then the page's events. Typed here so the compiler checks it like the rest.
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
  const fbq = w.fbq;
  fbq('init', config.pixelId);
  for (const event of config.events)
    fbq('track', event.name, event.data ?? {}, event.eventId ? { eventID: event.eventId } : {});
  const onPaid = config.purchaseOnPaid;
  const order = document.getElementById('order');
  if (!onPaid || !order) return;
  const observer = new MutationObserver(() => {
    if (order.dataset.status !== 'paid') return;
    observer.disconnect();
    void fetch(onPaid.statusUrl, { cache: 'no-store' })
      .then((response) => response.json() as Promise<{ sale_id?: string | null }>)
      .then((status) => {
        if (status.sale_id) fbq('track', 'Purchase', onPaid.data, { eventID: status.sale_id });
      })
      .catch(() => undefined);
  });
  observer.observe(order, { attributes: true, attributeFilter: ['data-status'] });
}

/** JSON safe inside a script element: no `<` to end it early, no line separators. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/** The page's pixel script, under its nonce. */
export function metaPixelScript(nonce: string, config: Omit<PixelConfig, 'script'>): string {
  const full: PixelConfig = { ...config, script: PIXEL_SCRIPT };
  return `<script nonce="${nonce}">(${bootMetaPixel.toString()})(${scriptJson(full)});</script>`;
}

/** The page's CSP with Meta's script and report origins added where the pixel needs them. */
export function metaPixelCsp(csp: string): string {
  const extra: Record<string, string[]> = {
    'script-src': [META_SCRIPT_ORIGIN],
    'connect-src': [META_REPORT_ORIGIN, META_SCRIPT_ORIGIN],
    'img-src': [META_REPORT_ORIGIN],
  };
  return csp
    .split('; ')
    .map((directive) => {
      const name = directive.split(' ')[0]!;
      return extra[name] ? [directive, ...extra[name]].join(' ') : directive;
    })
    .join('; ');
}

/**
 * A rendered page with the pixel: its script before `</body>` and its CSP widened. Pages of a store
 * without the browser pixel pass through unchanged.
 */
export function withMetaPixel(
  page: { html: string; csp: string; nonce: string },
  pixelId: string | null,
  config: Omit<PixelConfig, 'script' | 'pixelId'>,
): { html: string; csp: string } {
  if (pixelId === null) return page;
  const script = metaPixelScript(page.nonce, { ...config, pixelId });
  const at = page.html.lastIndexOf('</body>');
  return {
    html: at < 0 ? page.html + script : page.html.slice(0, at) + script + page.html.slice(at),
    csp: metaPixelCsp(page.csp),
  };
}

/**
 * An order page's events: InitiateCheckout under the order's id, and Purchase under its sale's id,
 * at once when it is paid already, else when the page sees it paid.
 */
export function orderPixel(
  order: Pick<OrdersTable, 'id' | 'amount_cents' | 'items' | 'sale_id'>,
  pagePath: string,
): Omit<PixelConfig, 'script' | 'pixelId'> {
  const data = pixelOrderData({
    amountCents: order.amount_cents,
    productIds: orderItems(order).map((item) => item.product_id),
  });
  return {
    events: [
      { name: 'PageView' },
      { name: 'InitiateCheckout', eventId: order.id, data },
      ...(order.sale_id !== null ? [{ name: 'Purchase' as const, eventId: order.sale_id, data }] : []),
    ],
    purchaseOnPaid: order.sale_id === null ? { statusUrl: `${pagePath}/status`, data } : null,
  };
}
