import type { Browser, Page } from 'playwright-core';
import { watchPage } from './chromium.js';
import type { PageWatch } from './chromium.js';
import type { TestApi } from './test-api.js';

/**
 * What the dashboard's browser tests share beyond ./chromium.ts: a watched page in its own context
 * (pt-BR, 360 px wide unless told), horizontal overflow and Tab stops.
 */
export interface Watched extends PageWatch {
  page: Page;
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
  return { page, ...(await watchPage(page, api.baseUrl)), close: () => context.close() };
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

/** The phone the dashboard is made for: 360 × 740 CSS px, a mobile viewport, device scale 2, touch. */
export const PHONE = {
  viewport: { width: 360, height: 740 },
  isMobile: true,
  deviceScaleFactor: 2,
  hasTouch: true,
} as const;

/** A watched page in a phone's browser context (`isMobile`: the layout viewport grows with wide content). */
export async function phonePage(browser: Browser, api: Pick<TestApi, 'baseUrl'>): Promise<Watched> {
  const context = await browser.newContext({ ...PHONE, locale: 'pt-BR' });
  const page = await context.newPage();
  return { page, ...(await watchPage(page, api.baseUrl)), close: () => context.close() };
}

/**
 * What a phone shows of a page: its width (the root's scroll width: a phone context widens the layout
 * viewport to fit wide content) and every element lying partly beyond the screen's right edge
 * (innermost ones, as `tag.class "text"`), unless a frame of its own scrolls it (a JSON box).
 */
export async function phoneFit(page: Page): Promise<{ width: number; offscreen: string[] }> {
  return page.evaluate((screen) => {
    const width = document.documentElement.scrollWidth;
    const scrolls = (element: Element) => getComputedStyle(element).overflowX !== 'visible';
    const beyond = (element: Element) => {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || box.right <= screen + 0.5) return false;
      for (let up = element.parentElement; up && up !== document.body; up = up.parentElement)
        if (scrolls(up)) return false;
      return true;
    };
    const offscreen = [...document.body.querySelectorAll('*')]
      .filter((element) => beyond(element) && ![...element.children].some(beyond))
      .map((element) => {
        const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 40);
        return `${element.tagName.toLowerCase()}.${[...element.classList].join('.')} "${text}"`;
      });
    return { width, offscreen };
  }, PHONE.viewport.width);
}
