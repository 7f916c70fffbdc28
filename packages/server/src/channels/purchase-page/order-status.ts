import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { OrdersTable } from '../../domain/orders/order-object.js';
import { accessLinksOf, orderStatusOf } from './page-data.js';
import type { OrderState } from './page-data.js';
import type { AccessLink } from './views/order-page.js';

/** What `…/status` answers and the stream's `status` events carry. `gone`: the order no longer exists. */
export interface OrderStatusJson {
  status: OrderState['status'] | 'gone';
  expires_at: string | null;
  access_links: AccessLink[];
  /** Once paid, its sale: the id the store's browser pixel gives Meta's Purchase (the server sends the same). */
  sale_id: string | null;
}

export const GONE: OrderStatusJson = { status: 'gone', expires_at: null, access_links: [], sale_id: null };

export interface ReadStatus {
  json: OrderStatusJson;
  /** The order's current charge, whose change signals are worth a fresh read. */
  chargeId: string | null;
}

type OrderKey = Pick<OrdersTable, 'id' | 'store_id'>;

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
  const rows = await db
    .selectFrom('orders')
    .leftJoin('pix_charges', (join) =>
      join
        .onRef('pix_charges.store_id', '=', 'orders.store_id')
        .onRef('pix_charges.id', '=', 'orders.pix_charge_id')
        .onRef('pix_charges.livemode', '=', 'orders.livemode'),
    )
    .selectAll('orders')
    .select(['pix_charges.status as charge_status', 'pix_charges.expires_at as charge_expires_at'])
    .where('orders.store_id', 'in', [...new Set(storeOf.values())])
    .where('orders.id', 'in', [...storeOf.keys()])
    .execute();
  for (const row of rows) {
    if (storeOf.get(row.id) !== row.store_id) continue;
    const charge =
      row.charge_status === null || row.charge_expires_at === null
        ? null
        : { status: row.charge_status, expires_at: row.charge_expires_at };
    const status = orderStatusOf(row, charge);
    found.set(row.id, {
      json: {
        status,
        expires_at: charge?.expires_at ?? null,
        // Paid is final (its stream ends), so the few paid orders read their links apart.
        access_links: status === 'paid' ? await accessLinksOf(db, row) : [],
        sale_id: status === 'paid' ? row.sale_id : null,
      },
      chargeId: row.pix_charge_id,
    });
  }
  return found;
}
