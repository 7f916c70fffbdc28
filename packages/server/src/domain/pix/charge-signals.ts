import { EventEmitter } from 'node:events';

/**
 * In-process news that a charge changed (paid, expired, canceled), so a purchase page waiting on it
 * answers at once. Only a hint: the pages' shared status reader also re-reads the database on a timer,
 * which covers changes made by another process (a separate worker, another node).
 */
const signals = new EventEmitter();
signals.setMaxListeners(0);
const CHANGED = 'changed';

export function chargeChanged(chargeId: string): void {
  signals.emit(CHANGED, chargeId);
}

/** Calls `listener` with the id of every charge that changes; returns the function that stops listening. */
export function onChargeChanged(listener: (chargeId: string) => void): () => void {
  signals.on(CHANGED, listener);
  return () => signals.off(CHANGED, listener);
}
