import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file builds its own app and database (a temp SQLite file, its own PostgreSQL schema),
    // so files run in parallel safely.
    pool: 'forks',
    // Most files wait more than they compute (child processes, Chromium, PSP timeouts, SMTP), so one
    // worker per core plus one keeps a 2-core machine busy; Vitest's default is one per core minus one.
    maxWorkers: availableParallelism() + 1,
    globalSetup: ['packages/server/test/support/global-setup.ts'],
  },
});
