import { startPollLoop } from './poll-loop.js';
import type { JobLog, Worker } from './worker.js';

/** A task run every interval rather than per item: a sweep, a prune, a schedule, a flush. */
export interface PeriodicDefinition {
  /** Names it in log lines (`subscription scheduler round failed; backing off`). */
  name: string;
  log: JobLog;
  intervalMs: number;
  run(): Promise<void>;
  /** The first run after one interval (the sweepers) rather than at start. */
  delayFirstRun?: boolean;
  /**
   * Says a failed run in the task's own words; it runs again at the next interval. Without it a
   * failure is logged and backed off like a worker's round (poll-loop.ts).
   */
  failed?(error: unknown): void;
}

/**
 * Runs a periodic task, never two runs at once; its timer does not hold the process. `stop` waits
 * for a run in progress, so the database can be closed after it.
 */
export function startPeriodic(definition: PeriodicDefinition): Worker {
  const { name, log, intervalMs, failed } = definition;
  const loop = startPollLoop({
    name,
    log,
    pollIntervalMs: intervalMs,
    delayFirstRound: definition.delayFirstRun ?? false,
    unref: true,
    round: async () => {
      if (!failed) await definition.run();
      else await definition.run().catch(failed);
      return false;
    },
  });
  return { wake: loop.wake, stop: loop.stop };
}
