import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { it } from 'vitest';

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
