import { availableParallelism, loadavg } from 'node:os';

/**
 * How much longer than on a quiet 4-core machine a test may wait: STOREFRONT_TEST_TIME_SCALE when set,
 * else guessed from the cores and the load when the run starts (a busy 2-core machine gets 3 to 6).
 * vitest.config.ts computes it once and hands it to every test process in that variable, so the
 * test timeouts and the helpers' own waits (process starts, polling, SMTP) stretch alike.
 */
export function timeScale(): number {
  const set = Number(process.env.STOREFRONT_TEST_TIME_SCALE);
  if (Number.isFinite(set) && set > 0) return set;
  const cores = availableParallelism();
  const busy = Math.max(1, loadavg()[0]! / cores);
  return Math.min(6, Math.max(1, (4 / cores) * busy) + (cores <= 2 ? 1 : 0));
}

/** `ms` stretched by the run's time scale. */
export function scaled(ms: number): number {
  return Math.round(ms * timeScale());
}
