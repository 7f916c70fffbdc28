import { EventEmitter } from 'node:events';
import type { QueryExecutor } from 'kysely';
import { afterCommit } from '../db/after-commit.js';

/**
 * Named nudges to this process's workers: work of that name (`outbox`, `email`…) has just been
 * committed. Only a shortcut over the workers' polling, which alone guarantees the work is done. With
 * several HTTP processes, src/channels/cluster/new-events-relay.ts carries them to the primary's workers.
 */
const signal = new EventEmitter();
signal.setMaxListeners(0);

/** Calls `listener` with the name of every wake in this process; returns the unsubscribe. */
export function onWake(listener: (name: string) => void): () => void {
  signal.on('wake', listener);
  return () => signal.off('wake', listener);
}

/** Wakes this process's workers of `name` now. */
export function wake(name: string): void {
  signal.emit('wake', name);
}

const wakes = new Map<string, () => void>();

/**
 * Wakes the workers of `name` once `db`'s transaction commits (at once outside a transaction), so a
 * worker never looks before the work is visible and never for work a rollback undid. The writers
 * that queue work call it (the outbox, the e-mail and conversion queues, the PSP callbacks), so the
 * nudge follows the work whatever wrote it: an API request, the purchase page, the dashboard, a worker.
 */
export function wakeOnCommit(
  db: { readonly isTransaction: boolean; getExecutor(): QueryExecutor },
  name: string,
): Promise<void> {
  let effect = wakes.get(name);
  if (!effect) wakes.set(name, (effect = () => wake(name)));
  return afterCommit(db, effect);
}
