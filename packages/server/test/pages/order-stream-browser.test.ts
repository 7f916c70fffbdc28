import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable,
  chromiumSuiteTitle,
  failWithoutRequiredChromium,
  launchChromium,
} from '../support/chromium.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { chargeOfOrder, createShop, placeOrder } from './page-support.js';
import { openStream } from './sse-client.js';

/**
 * The order page's script against the limits of its live-status stream, in a real browser: a stream
 * ended by its lifetime is opened again, and a stream refused (429) falls back to polling `…/status`.
 * Either way the payment shows without a reload.
 */

let browser: Browser | undefined;
beforeAll(async () => {
  if (chromiumAvailable) browser = await launchChromium();
});
afterAll(() => browser?.close());

failWithoutRequiredChromium();

/** The order page of a new order, with the paths of every request it makes counted. */
async function orderPage(api: TestApi) {
  const shop = await createShop(api);
  const { token } = await placeOrder(api, shop);
  const context = await browser!.newContext({ viewport: { width: 360, height: 800 }, locale: 'pt-BR' });
  const page: Page = await context.newPage();
  const requested: string[] = [];
  page.on('request', (request) => requested.push(new URL(request.url()).pathname));
  const count = (suffix: string) => requested.filter((path) => path === `/p/o/${token}/${suffix}`).length;
  const pay = async () => {
    const paid = await api
      .as(shop.key)
      .post(`/payments/pix/${await chargeOfOrder(api, token!)}/simulate_payment`);
    expect(paid.status, paid.text).toBe(200);
  };
  return { shop, token: token!, context, page, count, pay };
}

describe.skipIf(!chromiumAvailable)(chromiumSuiteTitle('order page live status in headless Chromium'), () => {
  describeEachDatabase(
    'a stream ended by its lifetime',
    (api) => {
      it('is opened again by the page, which still shows the payment without a reload', async () => {
        const { context, page, token, count, pay } = await orderPage(api);
        await page.goto(`${api.baseUrl}/p/o/${token}`);
        await page.locator('#pending').waitFor({ state: 'visible' });
        await eventually(async () => count('events') >= 3, 20_000);
        expect(count('status')).toBe(0);
        await pay();
        await page.locator('#paid').waitFor({ state: 'visible' });
        await context.close();
      }, 60_000);
    },
    {
      config: {
        orderRateLimitPerMinute: 1000,
        sse: { perToken: 5, perIp: 50, perProcess: 1000, maxLifetimeMs: 1000 },
      },
    },
  );

  describeEachDatabase(
    'a stream refused by the limit per token',
    (api) => {
      it('makes the page poll …/status, which shows the payment without a reload', async () => {
        const { context, page, token, count, pay } = await orderPage(api);
        const held = await openStream(api.baseUrl, token);
        expect(held.status).toBe(200);
        await page.goto(`${api.baseUrl}/p/o/${token}`);
        await page.locator('#pending').waitFor({ state: 'visible' });
        await eventually(async () => count('status') >= 1, 20_000);
        expect(count('events')).toBe(1);
        await pay();
        await page.locator('#paid').waitFor({ state: 'visible' });
        held.close();
        await context.close();
      }, 60_000);
    },
    {
      config: {
        orderRateLimitPerMinute: 1000,
        sse: { perToken: 1, perIp: 50, perProcess: 1000, maxLifetimeMs: 600_000 },
      },
    },
  );
});
