import { EventEmitter } from 'node:events';

/**
 * In-process nudge to an inline reconciler: a PSP callback just made charges due for a check. Only a
 * shortcut: a reconciler in another process finds them at its next poll.
 */
const signal = new EventEmitter();
signal.setMaxListeners(0);

export function onReconcileDue(listener: () => void): () => void {
  signal.on('due', listener);
  return () => signal.off('due', listener);
}

export function wakeReconcilers(): void {
  signal.emit('due');
}
