export interface PollLoop {
  /** Run a round now rather than at the next poll (or right after the round in progress). */
  wake(): void;
  /** Stops looping and waits for the round in progress. */
  stop(): Promise<void>;
}

/**
 * Runs `round` over and over: again at once while it says more work is waiting or while it was
 * woken during the round, otherwise after `pollIntervalMs` (or sooner when woken). A failed round is
 * reported and retried at the next poll. The background workers (webhook delivery, live Pix
 * reconciliation) share this loop.
 */
export function startPollLoop(
  round: () => Promise<boolean>,
  pollIntervalMs: number,
  onError: (err: unknown) => void,
): PollLoop {
  let stopping = false;
  let woken = false;
  let wakeUp: (() => void) | null = null;

  function wake(): void {
    woken = true;
    wakeUp?.();
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      woken = false;
      let more = false;
      try {
        more = await round();
      } catch (err) {
        onError(err);
      }
      if (stopping || more || woken) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollIntervalMs);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = null;
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
