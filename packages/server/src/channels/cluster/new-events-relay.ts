import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { announceNewEvents, onNewEvents } from '../../platform/jobs/wake.js';

const NEW_EVENTS = 'storefront:new-events';
/** At most one message per this many ms: the primary's worker folds nudges into rounds 25 ms apart anyway. */
const RELAY_GAP_MS = 25;

/**
 * In an HTTP process: a committed write nudges the primary's delivery worker over the cluster's IPC
 * channel, as it would nudge an inline worker in the same process. Without it deliveries would wait
 * for the worker's next poll (250 ms). The first write of a quiet spell is sent at once; writes during
 * the next RELAY_GAP_MS are folded into one message at its end.
 */
export function relayNewEventsToPrimary(): () => void {
  let lastSentAt = 0;
  let timer: NodeJS.Timeout | null = null;
  const send = () => {
    lastSentAt = Date.now();
    if (process.connected) process.send?.({ type: NEW_EVENTS });
  };
  const unsubscribe = onNewEvents(() => {
    const wait = lastSentAt + RELAY_GAP_MS - Date.now();
    if (wait <= 0) return send();
    timer ??= setTimeout(() => {
      timer = null;
      send();
    }, wait).unref();
  });
  return () => {
    unsubscribe();
    if (timer) clearTimeout(timer);
  };
}

/** In the primary: a nudge from any HTTP process wakes this process's listeners (the delivery worker). */
export function receiveNewEventsFromHttpProcesses(): () => void {
  const onMessage = (_worker: Worker, message: unknown) => {
    if ((message as { type?: unknown } | null)?.type === NEW_EVENTS) announceNewEvents();
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}
