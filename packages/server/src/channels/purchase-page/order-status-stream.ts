import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OrdersTable } from '../../domain/orders/order-object.js';
import type { OrderStatusFeed } from './order-status-feed.js';
import { StreamSlots } from './stream-slots.js';
import type { StreamLimits } from './stream-slots.js';

/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/** Nothing follows these: the stream ends once it has told them. */
const FINAL = new Set(['paid', 'canceled', 'gone']);

export interface StreamSettings extends StreamLimits {
  /** A stream ends after this long (with an `end` event); the page opens a new one or polls. */
  maxLifetimeMs: number;
}

/**
 * Server-Sent Events for order pages: a `status` event at once and whenever the status changes, all
 * fed by the process's one shared status reader (no database query of a stream's own). A stream ends
 * once its order is paid or its charge canceled; an expired order stays open, as the buyer may still
 * get a new Pix for it. Every stream ends after `maxLifetimeMs` with `event: end` (`reason: lifetime`),
 * and when the service closes.
 */
export function orderEventStreams(app: FastifyInstance, settings: StreamSettings, feed: OrderStatusFeed) {
  const slots = new StreamSlots(settings);
  const open = new Set<{ keepalive(): void; close(): void }>();
  const keepalive = setInterval(() => {
    for (const stream of open) stream.keepalive();
  }, KEEPALIVE_MS).unref();
  app.addHook('preClose', async () => {
    clearInterval(keepalive);
    for (const stream of [...open]) stream.close();
    feed.close();
  });

  return {
    /**
     * A slot for a stream on `token` from this client, or null when a limit refuses it. Taken before
     * the order is even looked up, so a refused stream costs no database read; give it back with the
     * returned function if no stream follows.
     */
    admit: (token: string, request: FastifyRequest) => slots.take(token, request.ip),
    /** Starts the stream admitted with `release`, which the stream gives back when it ends. */
    open: (
      request: FastifyRequest,
      reply: FastifyReply,
      order: Pick<OrdersTable, 'id' | 'store_id' | 'pix_charge_id' | 'card_payment_id'>,
      release: () => void,
    ) => start(request, reply, order, release),
  };

  function start(
    request: FastifyRequest,
    reply: FastifyReply,
    order: Pick<OrdersTable, 'id' | 'store_id' | 'pix_charge_id' | 'card_payment_id'>,
    release: () => void,
  ): void {
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
      'request-id': request.id,
    });
    let closed = false;
    const stop = feed.watch(order, (state) => {
      raw.write(`event: status\ndata: ${JSON.stringify(state)}\n\n`);
      if (FINAL.has(state.status)) stream.close();
    });
    const lifetime = setTimeout(() => {
      raw.write('event: end\ndata: {"reason":"lifetime"}\n\n');
      stream.close();
    }, settings.maxLifetimeMs);
    const stream = {
      keepalive: () => raw.write(': keepalive\n\n'),
      close() {
        if (closed) return;
        closed = true;
        clearTimeout(lifetime);
        stop();
        release();
        open.delete(stream);
        raw.end();
      },
    };
    open.add(stream);
    raw.on('close', stream.close);
  }
}
