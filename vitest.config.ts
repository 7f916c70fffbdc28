import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { timeScale } from './packages/server/test/support/time-scale.js';

/**
 * Timeouts are a quiet machine's times the run's scale (STOREFRONT_TEST_TIME_SCALE, else guessed
 * from the cores and the load: see time-scale.ts); the test processes get the same scale, so the
 * helpers' own waits stretch alike.
 */
const scale = timeScale();

/** What every test file gets, whichever project runs it. */
const common = {
  testTimeout: Math.round(30_000 * scale),
  hookTimeout: Math.round(60_000 * scale),
  teardownTimeout: Math.round(10_000 * scale),
  env: {
    STOREFRONT_TEST_TIME_SCALE: String(scale),
    // New passwords are hashed at scrypt N = 2^10 instead of 2^17 (honoured only under Vitest; see
    // passwords.ts): hundreds of logins otherwise queue on the CPU. Hashing's own tests unset it.
    STOREFRONT_TEST_PASSWORD_COST: '10',
  },
};

/** Files that change what a process shares (the clock, the environment, a module): run alone. */
const ISOLATED = [
  'packages/server/test/analytics/analytics.test.ts',
  'packages/server/test/dashboard/inicio-analytics.test.ts',
  'packages/server/test/dashboard/inicio.test.ts',
  'packages/server/test/foundation/password-hashing.test.ts',
  'packages/server/test/products/codigo-collision.test.ts',
  'packages/server/test/subscriptions/store-timezone.test.ts',
];

export default defineConfig({
  test: {
    // Each file builds its own app and database (a temp SQLite file, its own PostgreSQL schema),
    // so files run in parallel safely.
    pool: 'forks',
    // Most files wait more than they compute (child processes, Chromium, PSP timeouts, SMTP), so one
    // worker per core plus one keeps a 2-core machine busy; Vitest's default is one per core minus one.
    maxWorkers: availableParallelism() + 1,
    // Importing a test file's module graph (the whole app) took more time than most files take to
    // run, so files share their worker's modules ('shared'); each still builds its own app and
    // database. The few that fake the clock, stub the environment or mock a module run isolated.
    projects: [
      {
        test: {
          ...common,
          name: 'shared',
          include: ['packages/*/test/**/*.test.ts'],
          exclude: ISOLATED,
          isolate: false,
          // Once for the run: it builds the server and watches for processes left behind.
          globalSetup: ['packages/server/test/support/global-setup.ts'],
        },
      },
      { test: { ...common, name: 'isolated', include: ISOLATED, isolate: true } },
    ],
  },
});
