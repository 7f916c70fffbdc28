import type { BaseLogger } from 'pino';
import { startPollLoop } from './poll-loop.js';
import { onWake } from './wake.js';

export type JobLog = Pick<BaseLogger, 'debug' | 'info' | 'warn' | 'error'>;

/** A running background job: a worker (below) or a periodic task (periodic.ts). */
export interface Worker {
  /** Look for work now rather than at the next poll. */
  wake(): void;
  /** Stops claiming, lets the work in flight finish and record its result, then closes. */
  stop(): Promise<void>;
}

/**
 * A worker, declared once: what it claims, how it handles one item, how many items it keeps in
 * flight, what wakes it, what it closes. Leases and retries belong to its queue: `claim` leases items
 * (claim-due.ts), and `handle` records each result under its lease, scheduling a retry when one is
 * due (retry-schedule.ts). Rounds that fail back off (poll-loop.ts).
 */
export interface WorkerDefinition<Item> {
  /** Names the worker in its log lines: `<name> round failed; backing off`, `<name> recovered`. */
  name: string;
  log: JobLog;
  /** How often it looks for work while idle. */
  pollIntervalMs: number;
  /** Items in flight at once; it claims again once half of them are done. */
  concurrency: number;
  /** The wakes (wake.ts) that send it looking at once: the commits that queue its work. */
  wakeOn: readonly string[];
  /** Those wakes are folded into at most one round per this many ms (its own stay immediate). */
  wakeGapMs?: number;
  /** Leases up to `limit` due items to this worker. */
  claim(limit: number): Promise<Item[]>;
  /** Does one item and records its result, under its lease. */
  handle(item: Item): Promise<void>;
  /** `handle` threw: its result is not recorded, and the item comes back when its lease runs out. */
  failed(item: Item, error: unknown): void;
  /** Work of each round before the claim (the webhook outbox's fan-out); true when more of it waits. */
  beforeClaim?(): Promise<boolean>;
  /** Work of each round after the claim (trimming the webhook history). */
  afterClaim?(): Promise<void>;
  /** Once stopped, with nothing in flight: closes its connections. */
  close?(): Promise<void>;
}

/**
 * Starts a worker. Any number may run against one database: each item is leased to one of them.
 * A round claims as many items as there are free slots and starts them without waiting: the items
 * run in flight, and the worker claims again once half its slots are free. `stop` stops claiming,
 * waits for the items in flight (each records its result), then closes.
 */
export function startWorker<Item>(definition: WorkerDefinition<Item>): Worker {
  const { name, log, pollIntervalMs, concurrency, wakeGapMs = 0 } = definition;
  const inFlight = new Set<Promise<void>>();

  function start(item: Item): void {
    const running = definition
      .handle(item)
      .catch((error: unknown) => definition.failed(item, error))
      .finally(() => {
        inFlight.delete(running);
        // Claim again once half the slots are free: batches of claims, not one query per item.
        if (inFlight.size <= concurrency / 2) loop.wake();
      });
    inFlight.add(running);
  }

  let lastRoundAt = 0;
  async function round(): Promise<boolean> {
    lastRoundAt = Date.now();
    const more = (await definition.beforeClaim?.()) ?? false;
    const free = concurrency - inFlight.size;
    if (free > 0) (await definition.claim(free)).forEach(start);
    await definition.afterClaim?.();
    return more;
  }

  const loop = startPollLoop({ round, pollIntervalMs, log, name });

  /**
   * Under write load a round per committed write cost two write transactions per write even with
   * nothing to send (bench/README.md): wakes are folded into at most one round per `wakeGapMs`.
   */
  let wakeTimer: NodeJS.Timeout | null = null;
  const stopListening = onWake((woken) => {
    if (!definition.wakeOn.includes(woken)) return;
    const wait = lastRoundAt + wakeGapMs - Date.now();
    if (wait <= 0) return loop.wake();
    wakeTimer ??= setTimeout(() => {
      wakeTimer = null;
      loop.wake();
    }, wait).unref();
  });

  let stopped: Promise<void> | null = null;
  return {
    wake: loop.wake,
    stop() {
      stopped ??= (async () => {
        stopListening();
        if (wakeTimer) clearTimeout(wakeTimer);
        await loop.stop();
        await Promise.all(inFlight);
        await definition.close?.();
      })();
      return stopped;
    },
  };
}

/**
 * A claim over several queues of one worker, in order while slots are free (delivery e-mails before
 * recovery e-mails; the reconciler's charges, refunds, then its other checks).
 */
export async function claimInTurn<Item>(
  limit: number,
  claims: readonly ((limit: number) => Promise<Item[]>)[],
): Promise<Item[]> {
  const claimed: Item[] = [];
  for (const claim of claims) {
    if (claimed.length >= limit) break;
    claimed.push(...(await claim(limit - claimed.length)));
  }
  return claimed;
}
