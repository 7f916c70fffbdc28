import { setImmediate as nextTurn } from 'node:timers/promises';

interface Waiting<In, Out> {
  item: In;
  resolve(result: Out): void;
  reject(error: unknown): void;
}

/**
 * Group commit for a worker's results: a write starts on the next turn of the event loop, so every
 * result that arrives in the same turn shares it, and whatever arrives while a write runs goes into
 * the next one. One transaction per batch instead of one per result is most of a sending worker's
 * throughput (webhook attempts, conversion events). `write` answers one result per item, in order.
 */
export function createGroupCommit<In, Out>(write: (batch: In[]) => Promise<Out[]>) {
  let queue: Waiting<In, Out>[] = [];
  let writing: Promise<void> | null = null;

  async function drain(): Promise<void> {
    await nextTurn();
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const results = await write(batch.map((w) => w.item));
        batch.forEach((w, i) => w.resolve(results[i]!));
      } catch (error) {
        batch.forEach((w) => w.reject(error));
      }
    }
    writing = null;
  }

  return {
    record(item: In): Promise<Out> {
      return new Promise((resolve, reject) => {
        queue.push({ item, resolve, reject });
        writing ??= drain();
      });
    },
  };
}
