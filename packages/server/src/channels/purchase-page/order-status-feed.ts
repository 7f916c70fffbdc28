import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { OrdersTable } from '../../domain/orders/order-object.js';
import { onChargeChanged } from '../../domain/pix/charge-signals.js';
import { onCardPaymentChanged } from '../../domain/card-payments/card-signals.js';
import { GONE, readOrderStatuses } from './order-status.js';
import type { OrderStatusJson } from './order-status.js';

export type StatusListener = (state: OrderStatusJson) => void;

export interface OrderStatusFeed {
  /**
   * Calls `listener` with the order's status as soon as it is known, then on every change; returns the
   * function that stops it.
   */
  watch(
    order: Pick<OrdersTable, 'id' | 'store_id' | 'pix_charge_id' | 'card_payment_id'>,
    listener: StatusListener,
  ): () => void;
  /** This process changed the order itself (a new Pix replaced its charge): read it now if watched. */
  orderChanged(orderId: string): void;
  close(): void;
}

interface Watched {
  order: Pick<OrdersTable, 'id' | 'store_id'>;
  chargeId: string | null;
  cardPaymentId: string | null;
  listeners: Set<StatusListener>;
  /** The last status told, as JSON text; null until the first read. */
  last: string | null;
  state: OrderStatusJson | null;
}

/**
 * One reader per process for every open order stream: the orders being watched are read together, in
 * one statement, so a thousand open pages cost what one does. A read happens
 * - at once when a charge or card payment of a watched order changes in this process (their signals), and when a
 *   page starts watching an order nobody else watches;
 * - every `pollMs` for all of them, which brings changes written by another process or node (a
 *   separate worker, the PSP's callback on another node) and a Pix reaching its expiry time.
 * Reads never overlap: what is asked for during one is read right after it, together.
 */
export function orderStatusFeed(
  db: Kysely<Database>,
  options: { pollMs: number; log: FastifyBaseLogger },
): OrderStatusFeed {
  const watched = new Map<string, Watched>();
  const due = new Set<string>();
  let reading = false;
  let ticker: NodeJS.Timeout | null = null;

  async function readDue(): Promise<void> {
    if (reading) return;
    reading = true;
    try {
      while (due.size > 0) {
        const batch = [...due].flatMap((id) => watched.get(id) ?? []);
        due.clear();
        const states = await readOrderStatuses(
          db,
          batch.map((entry) => entry.order),
        );
        for (const entry of batch) {
          if (watched.get(entry.order.id) !== entry) continue; // nobody watches it any more
          const read = states.get(entry.order.id);
          entry.chargeId = read?.chargeId ?? null;
          entry.cardPaymentId = read?.cardPaymentId ?? null;
          const state = read?.json ?? GONE;
          const text = JSON.stringify(state);
          if (text === entry.last) continue;
          entry.last = text;
          entry.state = state;
          for (const listener of [...entry.listeners]) listener(state);
        }
      }
    } catch (err) {
      // The next tick reads every watched order again.
      options.log.warn({ err }, 'order status read failed');
      due.clear();
    } finally {
      reading = false;
    }
  }

  function readSoon(orderId: string): void {
    due.add(orderId);
    // Everything asked for in this turn of the event loop is read together.
    setImmediate(() => void readDue());
  }

  const stopChargeSignals = onChargeChanged((chargeId) => {
    for (const entry of watched.values()) if (entry.chargeId === chargeId) readSoon(entry.order.id);
  });
  // A card payment decided (3-D Secure, the issuer, a simulate_* call) is news to its order's page too.
  const stopCardSignals = onCardPaymentChanged((paymentId) => {
    for (const entry of watched.values()) if (entry.cardPaymentId === paymentId) readSoon(entry.order.id);
  });

  function tick(): void {
    for (const id of watched.keys()) due.add(id);
    void readDue();
  }

  return {
    watch(order, listener) {
      let entry = watched.get(order.id);
      if (!entry) {
        entry = {
          order: { id: order.id, store_id: order.store_id },
          chargeId: order.pix_charge_id,
          cardPaymentId: order.card_payment_id,
          listeners: new Set(),
          last: null,
          state: null,
        };
        watched.set(order.id, entry);
        readSoon(order.id);
      }
      const watching = entry;
      watching.listeners.add(listener);
      // Told after `watch` returns, so the listener may already stop watching (a paid order's stream ends).
      const known = watching.state;
      if (known) queueMicrotask(() => watching.listeners.has(listener) && listener(known));
      ticker ??= setInterval(tick, options.pollMs).unref();
      return () => {
        watching.listeners.delete(listener);
        if (watching.listeners.size > 0 || watched.get(order.id) !== watching) return;
        watched.delete(order.id);
        if (watched.size === 0 && ticker) {
          clearInterval(ticker);
          ticker = null;
        }
      };
    },
    orderChanged(orderId) {
      if (watched.has(orderId)) readSoon(orderId);
    },
    close() {
      stopChargeSignals();
      stopCardSignals();
      if (ticker) clearInterval(ticker);
      ticker = null;
      watched.clear();
    },
  };
}
