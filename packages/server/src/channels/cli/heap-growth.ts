import { setFlagsFromString } from 'node:v8';

/** At most double the heap between full collections (V8's own choice goes up to about 4x). */
export const HEAP_GROWING_PERCENT = 100;

/**
 * The V8 flag a long-running command sets, or null when the node command line already sets one.
 *
 * After a full collection V8 lets the old generation grow to about 3-4 times what survived before it
 * collects again. Under a burst of creations `serve` keeps ~33 MB alive, so its heap climbed to
 * ~110 MB and its RSS past 215 MB; growing by at most 100% keeps the peak near 180 MB for a few
 * percent more CPU on writes (bench/README.md, "Memory").
 */
export function heapGrowthFlag(execArgv: readonly string[]): string | null {
  if (execArgv.some((arg) => arg.startsWith('--heap-growing-percent'))) return null;
  return `--heap-growing-percent=${HEAP_GROWING_PERCENT}`;
}

/** Applies `heapGrowthFlag` to this process; V8 reads the flag at every collection. */
export function boundHeapGrowth(): void {
  const flag = heapGrowthFlag(process.execArgv);
  if (flag) setFlagsFromString(flag);
}
