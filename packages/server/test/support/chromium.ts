import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { scaled } from './time-scale.js';

/** Debian's Chromium, driven headless by playwright-core (no browser download). */
export const CHROMIUM = '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);

/** Why browser suites are skipped, for their titles. */
export const chromiumSuiteTitle = (title: string) =>
  chromiumAvailable ? title : `${title} (skipped: ${CHROMIUM} is not installed)`;

/** CI sets STOREFRONT_REQUIRE_CHROMIUM=1 so that a missing browser fails instead of skipping. */
export function failWithoutRequiredChromium(): void {
  it.runIf(!chromiumAvailable && process.env.STOREFRONT_REQUIRE_CHROMIUM === '1')(
    `needs ${CHROMIUM} (STOREFRONT_REQUIRE_CHROMIUM=1)`,
    () => {
      throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    },
  );
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    timeout: scaled(30_000),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A suite that shares one headless Chromium, launched before it and closed after it; without the
 * browser it is skipped with the reason in its title (failed under STOREFRONT_REQUIRE_CHROMIUM=1).
 */
export function describeInChromium(title: string, suite: (browser: () => Browser) => void): void {
  failWithoutRequiredChromium();
  describe.skipIf(!chromiumAvailable)(chromiumSuiteTitle(title), () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(() => browser?.close());
    suite(() => browser!);
  });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);

/** axe-core's serious and critical violations on the page as it stands, as `impact id (nodes)`. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<any> } }).axe;
    return axe.run();
  });
  return (result.violations as { id: string; impact: string; nodes: unknown[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.nodes.length})`);
}

/** A full-page screenshot into packages/server/test-artifacts/ (not committed). */
export async function saveScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(name, ARTIFACTS).pathname, fullPage: true });
}

export interface PageWatch {
  /** Requests to any other origin (aborted). */
  foreign: string[];
  /** Page errors and console errors. */
  problems: string[];
}

/**
 * Lets the page reach only `origin` (and data: URLs): any other request is aborted and recorded,
 * unless `answer` fulfils it (a test stand-in for a merchant's image host). Page and console errors
 * are recorded too.
 */
export async function watchPage(
  page: Page,
  origin: string,
  answer?: (url: URL) => { status: number; contentType: string; body: Buffer } | null,
): Promise<PageWatch> {
  const watch: PageWatch = { foreign: [], problems: [] };
  // Playwright's own waits (clicks, navigations) stretch like the test timeouts on a busy machine.
  page.setDefaultTimeout(scaled(30_000));
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === origin || url.protocol === 'data:') return route.continue();
    const stand = answer?.(url);
    if (stand) return route.fulfill(stand);
    watch.foreign.push(url.href);
    return route.abort();
  });
  page.on('pageerror', (error) => watch.problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') watch.problems.push(`console: ${message.text()}`);
  });
  return watch;
}
