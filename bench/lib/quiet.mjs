// On a shared machine, waits (bounded) for a moment when other processes leave the CPU alone.
import { setTimeout as sleep } from 'node:timers/promises';
import { watchCpu } from './proc-stats.mjs';

/** Resolves once other processes use under `maxPct`% of the CPU over 2 s, or after `maxWaitSeconds`. */
export async function waitForQuiet({ maxPct, maxWaitSeconds, log }) {
  if (maxWaitSeconds <= 0) return null;
  const deadline = Date.now() + maxWaitSeconds * 1000;
  let logged = false;
  for (;;) {
    const cpu = watchCpu(process.pid, [process.pid]);
    await sleep(2000);
    const { otherCpuPct } = cpu();
    if (otherCpuPct <= maxPct) return otherCpuPct;
    if (Date.now() >= deadline) {
      log(`other processes still use ${otherCpuPct}% of the CPU; measuring anyway`);
      return otherCpuPct;
    }
    if (!logged) log(`other processes use ${otherCpuPct}% of the CPU; waiting up to ${maxWaitSeconds} s`);
    logged = true;
  }
}
