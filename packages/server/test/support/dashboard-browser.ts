import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import type { TestApi } from './test-api.js';

/**
 * What the dashboard's browser tests share: a page that records requests to other origins and
 * script errors, axe-core's serious and critical violations, horizontal overflow, Tab stops and
 * screenshots (to packages/server/test-artifacts/).
 */
const ARTIFACTS = new URL('../../test-artifacts/', import.meta.url);
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Watched {
  page: Page;
  foreign: string[];
  problems: string[];
  close(): Promise<void>;
}

export async function watchedPage(
  browser: Browser,
  api: Pick<TestApi, 'baseUrl'>,
  width = 360,
  options: { javaScriptEnabled?: boolean } = {},
): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width, height: 800 }, locale: 'pt-BR', ...options });
  const page = await context.newPage();
  const foreign: string[] = [];
  const problems: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === api.baseUrl || url.protocol === 'data:') return route.continue();
    foreign.push(url.href);
    return route.abort();
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  return { page, foreign, problems, close: () => context.close() };
}

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

export const horizontalOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Every control Tab reaches, in order, by its accessible text (up to `limit` presses). */
export async function tabStops(page: Page, limit = 80): Promise<string[]> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const stops: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const label = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      if (!el || el === document.body) return null;
      const labelled = el.id ? document.querySelector(`label[for="${el.id}"]`)?.textContent : null;
      return (el.getAttribute('aria-label') ?? labelled ?? el.textContent ?? '').trim();
    });
    if (label === null) break;
    stops.push(label);
  }
  return stops;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: new URL(name, ARTIFACTS).pathname, fullPage: true });
}
