export interface Sweeper {
  /** Stops the timer and waits for a sweep in progress, so the database can be closed after it. */
  stop(): Promise<void>;
}

/**
 * Runs `sweep` every `intervalMs` (the Pix expiry, the abandonment of unpaid orders), never two runs
 * at once; the timer does not hold the process.
 */
export function startSweeper(
  sweep: () => Promise<unknown>,
  onError: (error: unknown) => void,
  intervalMs = 10_000,
): Sweeper {
  let running: Promise<void> | null = null;
  const timer = setInterval(() => {
    running ??= sweep()
      .then(() => undefined, onError)
      .finally(() => {
        running = null;
      });
  }, intervalMs).unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
