import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { onChargeChanged } from '../pix/charge-signals.js';

/** How often an open stream re-reads the order: changes made by another process arrive this late at most. */
const POLL_MS = 2000;
/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

export interface StatusSource {
  /** The order's status as JSON, read fresh; null when the order is gone. */
  read(): Promise<{ status: string } | null>;
  /** The charge whose changes are worth an immediate read. */
  chargeId: string | null;
}

/**
 * Server-Sent Events for one order page: a `status` event at once and whenever the status changes;
 * the stream ends once the order is paid or its charge canceled (nothing changes after either).
 * Changes in this process are pushed at once (charge signals); the timer covers the rest. Open
 * streams end when the service closes.
 */
export function orderEventStreams(app: FastifyInstance) {
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const close of [...open]) close();
  });

  return function stream(request: FastifyRequest, reply: FastifyReply, source: StatusSource): void {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      'request-id': request.id,
    });
    let last = '';
    let sinceWrite = 0;
    let closed = false;
    const push = async () => {
      try {
        const state = await source.read();
        if (closed) return;
        const data = JSON.stringify(state ?? { status: 'gone' });
        if (data !== last) {
          last = data;
          sinceWrite = 0;
          raw.write(`event: status\ndata: ${data}\n\n`);
        }
        if (!state || state.status === 'paid' || state.status === 'canceled') close();
      } catch (err) {
        request.log.warn({ err }, 'order event stream read failed');
      }
    };
    const timer = setInterval(() => {
      sinceWrite += POLL_MS;
      if (sinceWrite >= KEEPALIVE_MS) {
        sinceWrite = 0;
        raw.write(': keepalive\n\n');
      }
      void push();
    }, POLL_MS);
    const unsubscribe = source.chargeId ? onChargeChanged(source.chargeId, () => void push()) : () => {};
    function close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      unsubscribe();
      open.delete(close);
      raw.end();
    }
    open.add(close);
    request.raw.on('close', close);
    void push();
  };
}
