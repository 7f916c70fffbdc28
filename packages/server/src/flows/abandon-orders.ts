import type { Kysely } from 'kysely';
import type { Config } from '../platform/config/config.js';
import type { Database } from '../platform/db/schema.js';
import { queueRecoveryEmail } from './queue-recovery-email.js';
import { findStore } from '../domain/stores/stores.js';
import { recordOrderEvent } from './record-order-event.js';
import type { OrderLinkConfig } from '../domain/orders/order-links.js';
import type { OrdersTable } from '../domain/orders/order-object.js';
import { findOrdersToAbandon, markOrderAbandoned } from '../domain/orders/orders-repository.js';

/** An order unpaid this long after it was placed is abandoned. */
export const ABANDON_AFTER_MS = 30 * 60_000;

const BATCH = 100;

export type AbandonConfig = OrderLinkConfig & Pick<Config, 'smtp' | 'testMailAllow'>;

/**
 * pending → abandoned with `order.abandoned`, and its recovery e-mail queued when the store has it
 * on, in one transaction; a conditional update, so the sweep on several nodes, a payment and the
 * test-mode simulation racing it give one outcome and one event. Returns the abandoned row, or
 * undefined when the order was no longer pending.
 */
export async function abandonOrder(
  db: Kysely<Database>,
  order: Pick<OrdersTable, 'store_id' | 'id'>,
  config: AbandonConfig,
  options: { at: string; emailNow: boolean },
): Promise<OrdersTable | undefined> {
  return db.transaction().execute(async (trx) => {
    const abandoned = await markOrderAbandoned(trx, order, options.at);
    if (!abandoned) return undefined;
    const store = await findStore(trx, abandoned.store_id);
    const row = store ? await queueRecoveryEmail(trx, abandoned, store, config, options.emailNow) : abandoned;
    await recordOrderEvent(trx, config, 'order.abandoned', row);
    return row;
  });
}

/**
 * Abandons every order still pending 30 minutes after it was placed, as of `asOf` (now by default;
 * a later time plays the sweep as if that time had come, for tests and catching up). Returns how many
 * this call abandoned.
 */
export async function abandonDueOrders(
  db: Kysely<Database>,
  config: AbandonConfig,
  asOf: Date = new Date(),
): Promise<number> {
  const placedBy = new Date(asOf.getTime() - ABANDON_AFTER_MS).toISOString();
  const at = asOf.toISOString();
  let abandoned = 0;
  for (;;) {
    const due = await findOrdersToAbandon(db, placedBy, BATCH);
    for (const order of due) {
      if (await abandonOrder(db, order, config, { at, emailNow: false })) abandoned++;
    }
    if (due.length < BATCH) return abandoned;
  }
}
