import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { recordAttempts } from './record.js';
import type { FinishedAttempt, RecordedAttempt } from './record.js';

interface Waiting {
  finished: FinishedAttempt;
  resolve(result: RecordedAttempt): void;
  reject(error: unknown): void;
}

/**
 * Group commit for attempt results: a write starts on the next turn of the event loop, so every
 * response read in the same turn shares it, and whatever finishes while a write runs goes into the
 * next one. One transaction per batch instead of one per attempt is most of the worker's throughput.
 */
export function createResultWriter(db: Kysely<Database>, scheduleMs: readonly number[]) {
  let queue: Waiting[] = [];
  let writing: Promise<void> | null = null;

  async function drain(): Promise<void> {
    await nextTurn();
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        const results = await recordAttempts(
          db,
          batch.map((w) => w.finished),
          scheduleMs,
        );
        batch.forEach((w, i) => w.resolve(results[i]!));
      } catch (error) {
        batch.forEach((w) => w.reject(error));
      }
    }
    writing = null;
  }

  return {
    record(finished: FinishedAttempt): Promise<RecordedAttempt> {
      return new Promise((resolve, reject) => {
        queue.push({ finished, resolve, reject });
        writing ??= drain();
      });
    },
  };
}
