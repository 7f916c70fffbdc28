import cluster from 'node:cluster';
import type { Address, Worker } from 'node:cluster';
import type { ServiceLog } from '../server/service.js';

export interface Supervisor {
  /** The port, once the first HTTP process listens; rejects if one exits before any has listened. */
  listening: Promise<number>;
  /** Sends SIGTERM to every HTTP process and resolves once all have finished their requests and exited. */
  stop(): Promise<void>;
}

/** A process that served this long was healthy: its death restarts the back-off from nothing. */
const HEALTHY_AFTER_MS = 10_000;
const FIRST_RESTART_DELAY_MS = 100;
const MAX_RESTART_DELAY_MS = 30_000;

/** No wait after a healthy process dies; 100 ms, 200 ms, 400 ms … up to 30 s while they keep dying young. */
export function restartDelayMs(quickDeaths: number): number {
  if (quickDeaths === 0) return 0;
  return Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** (quickDeaths - 1));
}

/**
 * Forks `processes` HTTP processes (this same command, in node:cluster workers that share the
 * listening port) and replaces any that dies, with an exponential back-off so a process that cannot
 * start does not spin. A process that dies before any has listened (port taken, database
 * unreachable) is a failed start, not a crash: `listening` rejects and nothing is restarted.
 */
export function superviseHttpProcesses(options: { processes: number; log: ServiceLog }): Supervisor {
  const { log } = options;
  const startedAt = new Map<number, number>(); // live worker id → when it was forked
  const restarts = new Set<NodeJS.Timeout>();
  let quickDeaths = 0;
  let anyListened = false;
  let stopping = false;
  let allExited: () => void = () => {};

  let listened: (port: number) => void = () => {};
  let failed: (error: Error) => void = () => {};
  const listening = new Promise<number>((resolve, reject) => {
    listened = resolve;
    failed = reject;
  });

  function fork(): void {
    const worker = cluster.fork();
    startedAt.set(worker.id, Date.now());
  }

  cluster.on('listening', (_worker: Worker, address: Address) => {
    if (anyListened) return;
    anyListened = true;
    listened(address.port);
  });

  cluster.on('exit', (worker: Worker, code: number | null, signal: string | null) => {
    const lived = Date.now() - (startedAt.get(worker.id) ?? 0);
    startedAt.delete(worker.id);
    if (stopping) {
      if (startedAt.size === 0) allExited();
      return;
    }
    if (!anyListened) {
      failed(new Error(`an HTTP process exited (code ${code}, signal ${signal}) before any was listening`));
      return;
    }
    quickDeaths = lived >= HEALTHY_AFTER_MS ? 0 : quickDeaths + 1;
    const delay = restartDelayMs(quickDeaths);
    log.warn(
      { worker_pid: worker.process.pid, code, signal, restart_in_ms: delay },
      'HTTP process exited; starting another',
    );
    const timer = setTimeout(() => {
      restarts.delete(timer);
      fork();
    }, delay);
    restarts.add(timer);
  });

  for (let i = 0; i < options.processes; i++) fork();

  let stopped: Promise<void> | null = null;
  return {
    listening,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        stopping = true;
        for (const timer of restarts) clearTimeout(timer);
        allExited = resolve;
        if (startedAt.size === 0) return resolve();
        // Each HTTP process stops accepting, finishes its in-flight requests, closes and exits.
        for (const id of startedAt.keys()) cluster.workers?.[id]?.process.kill('SIGTERM');
      });
      return stopped;
    },
  };
}
