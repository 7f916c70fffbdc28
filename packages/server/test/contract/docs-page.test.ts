import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  chromiumAvailable as available,
  chromiumSuiteTitle,
  failWithoutRequiredChromium,
  launchChromium,
  watchPage,
} from '../support/chromium.js';
import { TestApi } from '../support/test-api.js';

/**
 * GET /docs renders the API reference in a real browser (Debian's chromium, headless, driven by
 * playwright-core), from assets the service serves itself: any request to another origin fails the test.
 */

/** Where the screenshot goes, for a human to look at (CI keeps it as an artifact if it wants). */
export const SCREENSHOT = join(tmpdir(), 'storefront-docs.png');

describe('GET /docs', () => {
  const api = new TestApi('sqlite');
  beforeAll(() => api.start());
  afterAll(() => api.stop());

  it('answers HTML without a key, outside the v1 prefix, with a CSP that allows only this origin', async () => {
    const res = await api.request('GET', '//docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).toContain('swagger-ui-bundle.js');
    expect(res.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|validator/);
    const init = await api.request('GET', '//docs/static/swagger-initializer.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('/api/public/v1/openapi.json');
    expect(init.text).toContain('validatorUrl: null');
    // The version it names is the description's own.
    const { version } = (await api.request('GET', '/openapi.json')).body.info;
    expect(init.text).toContain(`Storefront API v1 (${version})`);
    expect(init.text.match(/\(\d+\.\d+\.\d+\)/g)).toEqual([`(${version})`]);
  });

  it("the plugin's copies at /docs/json and /docs/yaml are 404, and the API's description keeps answering", async () => {
    for (const copy of ['//docs/yaml', '//docs/json', '//docs/yaml']) {
      const res = await api.request('GET', copy);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const description = await api.request('GET', '/openapi.json', { key: null });
    expect(description.status).toBe(200);
    expect(description.body.openapi).toBe('3.1.0');
  });

  failWithoutRequiredChromium();

  describe.skipIf(!available)(chromiumSuiteTitle('in headless Chromium'), () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(() => browser?.close());

    it('lists every operation of the description, fetching nothing from elsewhere', async () => {
      const document = (await api.request('GET', '/openapi.json')).body;
      const expected = Object.entries<Record<string, any>>(document.paths).flatMap(([path, item]) =>
        Object.entries(item).map(([method, op]) => ({ method, path, id: op.operationId as string })),
      );
      const page = await browser.newPage({ viewport: { width: 1280, height: 2200 } });
      const { foreign, problems } = await watchPage(page, api.baseUrl);

      await page.goto(`${api.baseUrl}/docs`, { waitUntil: 'networkidle' });
      await page.waitForSelector('.opblock-summary', { timeout: 20_000 });
      const shown = await page.$$eval('.opblock', (blocks) =>
        blocks.map((block) => ({
          method: block.querySelector('.opblock-summary-method')?.textContent?.trim().toLowerCase() ?? '',
          path: block.querySelector('.opblock-summary-path')?.getAttribute('data-path') ?? '',
          id: block.querySelector('.opblock-summary-operation-id')?.textContent?.trim() ?? '',
        })),
      );
      await page.screenshot({ path: SCREENSHOT, fullPage: false });
      const title = await page.textContent('.info .title');

      expect(title).toContain('Storefront API');
      expect(title).toContain('1.3.0');
      for (const op of expected) {
        expect(shown, `${op.method.toUpperCase()} ${op.path} on the page`).toContainEqual(op);
      }
      expect(shown.length).toBe(expected.length);
      expect(foreign, 'requests to other origins').toEqual([]);
      expect(problems, 'errors in the page (CSP violations included)').toEqual([]);
      await page.close();
    }, 60_000);
  });
});
