import { describe, it } from 'vitest';

export const REDIS_URL = process.env.STOREFRONT_TEST_REDIS_URL || null;

/** A suite that needs a service from the environment: skipped, with the reason in its name, without it. */
export function describeWhen(available: unknown, reason: string, title: string, suite: () => void): void {
  if (available) {
    describe(title, suite);
    return;
  }
  describe.skip(title, () => {
    it(`skipped: ${reason}`, () => {});
  });
}

export const NO_POSTGRES = 'STOREFRONT_TEST_DATABASE_URL is not set, so PostgreSQL is not tested here';
export const NO_REDIS = 'STOREFRONT_TEST_REDIS_URL is not set, so Redis is not tested here';
