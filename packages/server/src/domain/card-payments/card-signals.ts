import { EventEmitter } from 'node:events';

/**
 * In-process news that a card payment changed (approved, declined, authenticated), so a purchase page
 * waiting on it answers at once. Only a hint, like the Pix charges' signals: the pages' shared status
 * reader also re-reads the database on a timer, which covers changes made by another process.
 */
const signals = new EventEmitter();
signals.setMaxListeners(0);
const CHANGED = 'changed';

export function cardPaymentChanged(paymentId: string): void {
  signals.emit(CHANGED, paymentId);
}

/** Calls `listener` with the id of every card payment that changes; returns the function that stops it. */
export function onCardPaymentChanged(listener: (paymentId: string) => void): () => void {
  signals.on(CHANGED, listener);
  return () => signals.off(CHANGED, listener);
}
