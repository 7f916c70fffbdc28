import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { onWake, wake } from '../../platform/jobs/wake.js';

const NEW_WORK = 'storefront:new-work';
/** At most one message per this many ms: the primary's webhook worker folds wakes into rounds 25 ms apart anyway. */
const RELAY_GAP_MS = 25;

/**
 * In an HTTP process: the wakes fired by its commits (new events, queued e-mails, PSP callbacks…)
 * reach the primary's workers over the cluster's IPC channel, as they would reach inline workers in
 * the same process. Without it the work would wait for the workers' next poll (250 ms for webhooks).
 * The first wake of a quiet spell is sent at once; wakes during the next RELAY_GAP_MS are folded into
 * one message at its end.
 */
export function relayNewEventsToPrimary(): () => void {
  let lastSentAt = 0;
  let timer: NodeJS.Timeout | null = null;
  const waiting = new Set<string>();
  const send = () => {
    lastSentAt = Date.now();
    const names = [...waiting];
    waiting.clear();
    if (process.connected) process.send?.({ type: NEW_WORK, names });
  };
  const unsubscribe = onWake((name) => {
    waiting.add(name);
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

/** In the primary: the wakes relayed by any HTTP process wake this process's workers. */
export function receiveNewEventsFromHttpProcesses(): () => void {
  const onMessage = (_worker: Worker, message: unknown) => {
    const relayed = message as { type?: unknown; names?: unknown } | null;
    if (relayed?.type !== NEW_WORK || !Array.isArray(relayed.names)) return;
    for (const name of relayed.names) if (typeof name === 'string') wake(name);
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}
