import { EventEmitter } from 'node:events';

/**
 * In-process news that a charge changed (paid, expired, canceled), so a purchase page waiting on it answers at
 * once. Only a hint: pages also re-read the database on a timer, which covers changes made by
 * another process (a separate worker, another node).
 */
const signals = new EventEmitter();
signals.setMaxListeners(0);

export function chargeChanged(chargeId: string): void {
  signals.emit(chargeId);
}

/** Calls `listener` whenever the charge changes; returns the function that stops listening. */
export function onChargeChanged(chargeId: string, listener: () => void): () => void {
  signals.on(chargeId, listener);
  return () => signals.off(chargeId, listener);
}
