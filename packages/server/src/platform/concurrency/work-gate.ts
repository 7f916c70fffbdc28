/**
 * A bounded gate for expensive work (password hashing): at most `concurrency` tasks run, at most
 * `queue` more wait, and one key (a client's address) holds at most `perKey` of those places, so a
 * single client's flood neither grows memory nor pushes everyone else's work back. Past that the work
 * is refused at once, before it starts, with how long to wait.
 */
export interface WorkGateOptions {
  concurrency: number;
  queue: number;
  perKey: number;
}

/** The gate is full: the caller answers "busy" (HTTP 503 with Retry-After) without doing the work. */
export class GateFullError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super(`busy: retry after ${retryAfterSeconds} s`);
    this.name = 'GateFullError';
  }
}

export interface WorkGate {
  /** Runs `work` when a place is free; throws GateFullError when the queue (or the key's share) is full. */
  run<T>(work: () => Promise<T>, key?: string): Promise<T>;
  /** Running and waiting tasks, and whether the next one would be refused whatever its key. */
  readonly load: { running: number; waiting: number; full: boolean };
}

export function workGate(options: WorkGateOptions): WorkGate {
  let running = 0;
  const waiting: Array<() => void> = [];
  const perKey = new Map<string, number>();
  // A moving average of one task's duration, for Retry-After: how long the places ahead take to clear.
  let averageMs = 500;

  const full = () => running >= options.concurrency && waiting.length >= options.queue;

  function retryAfter(): number {
    const rounds = (running + waiting.length) / options.concurrency;
    return Math.max(1, Math.ceil((rounds * averageMs) / 1000));
  }

  function release(key: string | undefined): void {
    if (key !== undefined) {
      const held = (perKey.get(key) ?? 1) - 1;
      if (held > 0) perKey.set(key, held);
      else perKey.delete(key);
    }
    const next = waiting.shift();
    if (next) next();
    else running--;
  }

  return {
    async run(work, key) {
      if (full() || (key !== undefined && (perKey.get(key) ?? 0) >= options.perKey))
        throw new GateFullError(retryAfter());
      if (key !== undefined) perKey.set(key, (perKey.get(key) ?? 0) + 1);
      // A freed place passes straight to the next waiter: `running` counts it throughout.
      if (running < options.concurrency) running++;
      else await new Promise<void>((resolve) => waiting.push(resolve));
      const started = performance.now();
      try {
        return await work();
      } finally {
        averageMs = averageMs * 0.8 + (performance.now() - started) * 0.2;
        release(key);
      }
    },
    get load() {
      return { running, waiting: waiting.length, full: full() };
    },
  };
}
