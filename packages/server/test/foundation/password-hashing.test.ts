import { afterEach, describe, expect, it, vi } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/domain/accounts/passwords.js';

/**
 * The test run hashes new passwords at a lower cost (vitest.config.ts sets STOREFRONT_TEST_PASSWORD_COST);
 * this file is about the hashing itself, so it checks that knob cannot weaken a real deployment.
 */
describe('password hashing: OWASP parameters, and the test-only cost knob', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('hashes at N = 2^17, r = 8, p = 1 without the knob, and verifies', async () => {
    vi.stubEnv('STOREFRONT_TEST_PASSWORD_COST', undefined);
    const hash = await hashPassword('uma senha longa');
    expect(hash).toMatch(/^scrypt\$17\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword('uma senha longa', hash)).toBe(true);
  });

  it('ignores the knob outside a test run (no VITEST, or NODE_ENV other than test)', async () => {
    vi.stubEnv('STOREFRONT_TEST_PASSWORD_COST', '10');
    vi.stubEnv('VITEST', undefined);
    expect(await hashPassword('uma senha longa')).toMatch(/^scrypt\$17\$/);
    vi.unstubAllEnvs();
    vi.stubEnv('STOREFRONT_TEST_PASSWORD_COST', '10');
    vi.stubEnv('NODE_ENV', 'production');
    expect(await hashPassword('uma senha longa')).toMatch(/^scrypt\$17\$/);
  });

  it('ignores a knob below 2^10 (each full-cost hash takes seconds on a busy machine: one case)', async () => {
    vi.stubEnv('STOREFRONT_TEST_PASSWORD_COST', '4');
    expect(await hashPassword('uma senha longa')).toMatch(/^scrypt\$17\$/);
  });

  it('in a test run, a cheaper hash records its cost, and either hash verifies whatever the knob says now', async () => {
    vi.stubEnv('STOREFRONT_TEST_PASSWORD_COST', '10');
    const cheap = await hashPassword('uma senha longa');
    expect(cheap).toMatch(/^scrypt\$10\$8\$1\$/);
    vi.stubEnv('STOREFRONT_TEST_PASSWORD_COST', undefined);
    const real = await hashPassword('uma senha longa');
    expect(await verifyPassword('uma senha longa', cheap)).toBe(true);
    vi.stubEnv('STOREFRONT_TEST_PASSWORD_COST', '10');
    expect(await verifyPassword('uma senha longa', real)).toBe(true);
  });
});
