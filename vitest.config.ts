import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file builds its own app and database (a temp SQLite file, its own PostgreSQL schema),
    // so files run in parallel safely.
    pool: 'forks',
    globalSetup: ['packages/server/test/support/global-setup.ts'],
  },
});
