import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { timeScale } from './packages/server/test/support/time-scale.js';

/**
 * Timeouts are a quiet machine's times the run's scale (STOREFRONT_TEST_TIME_SCALE, else guessed
 * from the cores and the load: see time-scale.ts); the test processes get the same scale, so the
 * helpers' own waits stretch alike.
 */
const scale = timeScale();

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: Math.round(30_000 * scale),
    hookTimeout: Math.round(60_000 * scale),
    teardownTimeout: Math.round(10_000 * scale),
    env: {
      STOREFRONT_TEST_TIME_SCALE: String(scale),
      // New passwords are hashed at scrypt N = 2^10 instead of 2^17 (honoured only under Vitest; see
      // passwords.ts): hundreds of logins otherwise queue on the CPU. Hashing's own tests unset it.
      STOREFRONT_TEST_PASSWORD_COST: '10',
    },
    // Each file builds its own app and database (a temp SQLite file, its own PostgreSQL schema),
    // so files run in parallel safely.
    pool: 'forks',
    // Most files wait more than they compute (child processes, Chromium, PSP timeouts, SMTP), so one
    // worker per core plus one keeps a 2-core machine busy; Vitest's default is one per core minus one.
    maxWorkers: availableParallelism() + 1,
    globalSetup: ['packages/server/test/support/global-setup.ts'],
  },
});
