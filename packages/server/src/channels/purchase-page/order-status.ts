import type { Kysely } from 'kysely';
import { reusedListQuery } from '../../platform/db/reused-query.js';
import type { Database } from '../../platform/db/schema.js';
import type { OrdersTable } from '../../domain/orders/order-object.js';
import { accessLinksOf, declineMessageOf, orderStatusOf } from './page-data.js';
import type { OrderState } from './page-data.js';
import type { AccessLink } from './views/order-page.js';

/** What `…/status` answers and the stream's `status` events carry. `gone`: the order no longer exists. */
export interface OrderStatusJson {
  status: OrderState['status'] | 'gone';
  expires_at: string | null;
  access_links: AccessLink[];
  /** Once paid, its sale: the id the store's browser pixel gives Meta's Purchase (the server sends the same). */
  sale_id: string | null;
  /** An order paid by card while it has no Pix: why it was declined, where 3-D Secure waits; else null. */
  card: { decline_message: string | null; next_action_url: string | null } | null;
}

export const GONE: OrderStatusJson = {
  status: 'gone',
  expires_at: null,
  access_links: [],
  sale_id: null,
  card: null,
};

export interface ReadStatus {
  json: OrderStatusJson;
  /** The order's current charge and card payment, whose change signals are worth a fresh read. */
  chargeId: string | null;
  cardPaymentId: string | null;
}

type OrderKey = Pick<OrdersTable, 'id' | 'store_id'>;

/** Orders by id, each with its current charge's and card payment's status. */
const selectStatuses = reusedListQuery(
  'order statuses',
  (db: Kysely<Database>, storeIds: readonly string[], orderIds: readonly string[]) =>
    db
      .selectFrom('orders')
      .leftJoin('pix_charges', (join) =>
        join
          .onRef('pix_charges.store_id', '=', 'orders.store_id')
          .onRef('pix_charges.id', '=', 'orders.pix_charge_id')
          .onRef('pix_charges.livemode', '=', 'orders.livemode'),
      )
      .leftJoin('card_payments', (join) =>
        join
          .onRef('card_payments.store_id', '=', 'orders.store_id')
          .onRef('card_payments.id', '=', 'orders.card_payment_id'),
      )
      .selectAll('orders')
      .select(['pix_charges.status as charge_status', 'pix_charges.expires_at as charge_expires_at'])
      .select([
        'card_payments.status as card_status',
        'card_payments.decline_code as card_decline_code',
        'card_payments.next_action_url as card_next_action_url',
      ])
      .where('orders.store_id', 'in', storeIds)
      .where('orders.id', 'in', orderIds),
);

/**
 * The status of many orders in ONE statement (the order and its current charge), so the pages' shared
 * reader costs one query however many pages watch. Orders not found are missing from the map.
 */
export async function readOrderStatuses(
  db: Kysely<Database>,
  orders: readonly OrderKey[],
): Promise<Map<string, ReadStatus>> {
  const found = new Map<string, ReadStatus>();
  if (orders.length === 0) return found;
  const storeOf = new Map(orders.map((order) => [order.id, order.store_id]));
  const rows = (await selectStatuses(db, [...new Set(storeOf.values())], [...storeOf.keys()])).rows;
  for (const row of rows) {
    if (storeOf.get(row.id) !== row.store_id) continue;
    const charge =
      row.charge_status === null || row.charge_expires_at === null
        ? null
        : { status: row.charge_status, expires_at: row.charge_expires_at };
    const card = row.card_status === null ? null : { status: row.card_status };
    const status = orderStatusOf(row, charge, card);
    const byCard = status === 'declined' || status === 'requires_action' || status === 'processing';
    found.set(row.id, {
      json: {
        status,
        expires_at: charge?.expires_at ?? null,
        // Paid is final (its stream ends), so the few paid orders read their links apart.
        access_links: status === 'paid' ? await accessLinksOf(db, row) : [],
        sale_id: status === 'paid' ? row.sale_id : null,
        card: byCard
          ? {
              decline_message:
                status === 'declined' ? declineMessageOf({ decline_code: row.card_decline_code }) : null,
              // Relative, like the page's other links.
              next_action_url:
                status === 'requires_action' && row.card_next_action_url
                  ? new URL(row.card_next_action_url).pathname
                  : null,
            }
          : null,
      },
      chargeId: row.pix_charge_id,
      cardPaymentId: row.card_payment_id,
    });
  }
  return found;
}
