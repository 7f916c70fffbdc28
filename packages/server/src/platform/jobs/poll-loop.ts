import type { BaseLogger } from 'pino';
import { isDatabaseUnavailable } from '../db/unavailable.js';

export interface PollLoop {
  /** Run a round now rather than at the next poll (or right after the round in progress). */
  wake(): void;
  /** Stops looping and waits for the round in progress. */
  stop(): Promise<void>;
}

export interface PollLoopOptions {
  /** One round of work; true when more is waiting (the next round starts at once). */
  round: () => Promise<boolean>;
  pollIntervalMs: number;
  log: Pick<BaseLogger, 'debug' | 'info' | 'warn' | 'error'>;
  /** Names the loop in its log lines (`webhook worker`, `pix reconciler`). */
  name: string;
  /** The first round after one interval rather than at once (the sweepers). */
  delayFirstRound?: boolean;
  /** The pauses between rounds do not hold the process (tasks beside a server or a worker). */
  unref?: boolean;
}

/** The longest pause between two rounds while they keep failing: how late a loop notices a recovery. */
const MAX_BACKOFF_MS = 5_000;

/** The poll interval while rounds succeed; doubling from it while they fail, up to MAX_BACKOFF_MS. */
function retryDelayMs(pollIntervalMs: number, failedRounds: number): number {
  return Math.min(pollIntervalMs * 2 ** failedRounds, Math.max(MAX_BACKOFF_MS, pollIntervalMs));
}

/**
 * Runs `round` over and over: again at once while it says more work is waiting or while it was
 * woken during the round, otherwise after `pollIntervalMs` (or sooner when woken). Failed rounds
 * back off, doubling up to 5 s; a database outage logs one warning, then quieter and quieter
 * retries. Every background job runs on it: the workers (worker.ts) and the periodic tasks (periodic.ts).
 */
export function startPollLoop(options: PollLoopOptions): PollLoop {
  const { round, pollIntervalMs, log, name } = options;
  let stopping = false;
  let woken = false;
  let wakeUp: (() => void) | null = null;

  function wake(): void {
    woken = true;
    wakeUp?.();
  }

  /** Waits `ms`, or less when woken. */
  async function pause(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      if (options.unref) timer.unref();
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wakeUp = null;
  }

  async function loop(): Promise<void> {
    let failedRounds = 0;
    if (options.delayFirstRound) await pause(pollIntervalMs);
    while (!stopping) {
      woken = false;
      let more = false;
      try {
        more = await round();
        if (failedRounds > 0) log.info({ failed_rounds: failedRounds }, `${name} recovered`);
        failedRounds = 0;
      } catch (err) {
        failedRounds++;
        if (!isDatabaseUnavailable(err)) log.error({ err }, `${name} round failed; backing off`);
        else if (failedRounds === 1)
          log.warn({ error: (err as Error).message }, `${name} round failed; backing off`);
        else
          log.debug({ error: (err as Error).message, failed_rounds: failedRounds }, `${name} round failed`);
      }
      if (stopping || (failedRounds === 0 && (more || woken))) continue;
      await pause(retryDelayMs(pollIntervalMs, failedRounds));
    }
  }

  const running = loop();
  return {
    wake,
    async stop() {
      stopping = true;
      wake();
      await running;
    },
  };
}
