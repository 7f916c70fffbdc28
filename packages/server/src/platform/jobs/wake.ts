import { EventEmitter } from 'node:events';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * In-process nudge from the API to an inline worker: a write request has just committed, so there
 * may be new events. Only a shortcut over the worker's polling, which alone guarantees delivery.
 * With several HTTP processes, src/channels/cluster/new-events-relay.ts carries it to the primary's worker.
 */
const signal = new EventEmitter();
signal.setMaxListeners(0);

export function onNewEvents(listener: () => void): () => void {
  signal.on('events', listener);
  return () => signal.off('events', listener);
}

/** Tells this process's listeners (an inline worker) that new events may have been committed. */
export function announceNewEvents(): void {
  signal.emit('events');
}

/** After the response is sent the request's transaction has committed: the events are visible. */
export const wakeWorkersOnWrite = fp(async (app: FastifyInstance) => {
  app.addHook('onResponse', async (request, reply) => {
    if (request.method !== 'GET' && reply.statusCode < 300) announceNewEvents();
  });
});
