import type { Browser, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { describeInChromium, watchPage } from '../support/chromium.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { createShop, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { newPixelId, setMeta } from './meta-support.js';

/**
 * Meta's browser pixel in headless Chromium, Meta's hosts answered by playwright's routing (no real
 * network): it loads only on the product pages of a store whose owner turned it on, under a CSP widened
 * for Meta's two origins, and tracks the visit. Never on an order page, whose URL is the buyer's key
 * (the server sends InitiateCheckout and Purchase). Another store's pages keep the strict CSP and never
 * reach Meta, and no purchase page's script can reach the dashboard.
 */

const SCRIPT_ORIGIN = 'https://connect.facebook.net';
const REPORT_ORIGIN = 'https://www.facebook.com';

/** Stands in for fbevents.js: takes over `fbq`, and reports each `track` as Meta does, with an image. */
const FAKE_FBEVENTS = `(function () {
  var fbq = window.fbq;
  fbq.callMethod = function () {
    var args = [].slice.call(arguments);
    if (args[0] !== 'track') return;
    new Image().src = '${REPORT_ORIGIN}/tr?ev=' + args[1] + '&eid=' + ((args[3] || {}).eventID || '');
  };
  fbq.queue.forEach(function (args) { fbq.callMethod.apply(fbq, args); });
  fbq.queue = [];
})();`;

const GIF = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64');

interface Visit {
  page: Page;
  /** Requests that reached Meta's stand-ins: `ev:eid` for reports, `script` for fbevents.js. */
  meta: string[];
  foreign: string[];
  problems: string[];
}

async function visit(browser: Browser, api: TestApi): Promise<Visit> {
  const context = await browser.newContext({ locale: 'pt-BR' });
  const page = await context.newPage();
  const meta: string[] = [];
  const watch = await watchPage(page, api.baseUrl, (url) => {
    if (url.href === `${SCRIPT_ORIGIN}/en_US/fbevents.js`) {
      meta.push('script');
      return { status: 200, contentType: 'text/javascript', body: Buffer.from(FAKE_FBEVENTS) };
    }
    if (url.origin === REPORT_ORIGIN && url.pathname === '/tr') {
      meta.push(`${url.searchParams.get('ev')}:${url.searchParams.get('eid')}`);
      return { status: 200, contentType: 'image/gif', body: GIF };
    }
    return null;
  });
  return { page, meta, ...watch };
}

describeInChromium('Meta browser pixel in headless Chromium', (browser) => {
  describeEachDatabase('pixel pages', (api) => {
    let pixelShop: Shop;
    let plainShop: Shop;
    let pixelId: string;

    beforeAll(async () => {
      pixelShop = await createShop(api, {}, 'Loja com Pixel');
      pixelId = newPixelId();
      await setMeta(api, pixelShop.key, { pixel_id: pixelId, access_token: 'EAAB-x', browser_pixel: true });
      plainShop = await createShop(api, {}, 'Loja sem Pixel');
      // Meta set for the server only: the browser pixel stays off.
      await setMeta(api, plainShop.key, { pixel_id: newPixelId(), access_token: 'EAAB-y' });
    });

    it('loads on the pixel store’s product page with a CSP widened for Meta only', async () => {
      const { page, meta, foreign, problems } = await visit(browser(), api);
      const response = await page.goto(`${api.baseUrl}${pixelShop.pagePath}`);
      const csp = response!.headers()['content-security-policy']!;
      expect(csp).toMatch(new RegExp(`script-src 'nonce-[^;]+' ${SCRIPT_ORIGIN}(;|$)`));
      expect(csp).toContain(`img-src 'self' data: ${REPORT_ORIGIN}`);
      const own = `${api.baseUrl}${pixelShop.pagePath}`;
      // The store takes simulated cards: the installments and, after a decline, its order's Pix.
      expect(csp).toContain(
        `connect-src ${own}/orders ${own}/quote ${own}/installments ${api.baseUrl}/p/o/ ${REPORT_ORIGIN} ${SCRIPT_ORIGIN}`,
      );
      expect(csp).toContain("default-src 'none'");
      await eventually(async () => meta.includes('PageView:'));
      expect(meta).toEqual(['script', 'PageView:']);
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('stays off the pixel store’s order page: its URL never reaches Meta, and paying still updates it', async () => {
      const { token } = await placeOrder(api, pixelShop);
      const { page, meta, foreign, problems } = await visit(browser(), api);
      const response = await page.goto(`${api.baseUrl}/p/o/${token}`);
      expect(response!.headers()['content-security-policy']).not.toContain('facebook');
      // `fbq(` is the pixel's call; a bare `fbq` can occur by chance in a QR code's base64.
      expect(await page.content()).not.toContain('fbq(');
      // The narrowed connect-src still lets the page's script simulate, stream and read its status.
      await page.getByRole('button', { name: 'Simular pagamento' }).click();
      await page.getByRole('heading', { name: /Pagamento confirmado/ }).waitFor();
      await page.waitForTimeout(300);
      expect(meta).toEqual([]);
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('keeps a purchase page’s script off the dashboard: the CSP refuses the fetch', async () => {
      const { token } = await placeOrder(api, plainShop);
      const { page } = await visit(browser(), api);
      for (const path of [plainShop.pagePath, `/p/o/${token}`]) {
        await page.goto(`${api.baseUrl}${path}`);
        const outcome = await page.evaluate(() =>
          fetch('/dashboard/', { credentials: 'include' }).then(
            () => 'reached',
            () => 'refused',
          ),
        );
        expect(outcome, path).toBe('refused');
      }
      await page.context().close();
    });

    it('stays off another store’s pages, whose CSP stays strict', async () => {
      const { token } = await placeOrder(api, plainShop);
      const { page, meta, foreign, problems } = await visit(browser(), api);
      for (const path of [plainShop.pagePath, `/p/o/${token}`]) {
        const response = await page.goto(`${api.baseUrl}${path}`);
        const csp = response!.headers()['content-security-policy']!;
        expect(csp).not.toContain('facebook');
        // `fbq(` is the pixel's call; a bare `fbq` can occur by chance in a QR code's base64.
        expect(await page.content()).not.toContain('fbq(');
      }
      await page.waitForTimeout(300);
      expect(meta).toEqual([]);
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await page.context().close();
    });
  });
});
