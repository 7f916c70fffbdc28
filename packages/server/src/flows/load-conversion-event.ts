import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { orderItems } from '../domain/orders/order-object.js';
import type { OrdersTable } from '../domain/orders/order-object.js';
import { findOrder } from '../domain/orders/orders-repository.js';
import { parseTracking } from '../domain/kernel/tracking.js';
import type { Customer } from '../domain/kernel/customer.js';
import type { SaleItem } from '../domain/kernel/line-items.js';
import { findStore } from '../domain/stores/stores.js';
import type { StoresTable } from '../domain/stores/stores.js';
import type { ConversionEventsTable } from '../domain/conversions/conversion-event.js';
import type { EventSource } from '../domain/conversions/meta-payload.js';

/** The purchase page's prefix (purchase-page-routes.ts); a product's page is `/p/<handle>/<slug>`. */
const PURCHASE_PAGE_PREFIX = '/p';

export interface LoadedEvent {
  store: StoresTable | undefined;
  /** Null when its order or sale no longer exists. */
  source: EventSource | null;
}

const customerOf = (json: string | null): Customer | null =>
  json === null ? null : (JSON.parse(json) as Customer);

function orderPart(order: OrdersTable): NonNullable<EventSource['order']> {
  return {
    id: order.id,
    createdAt: order.created_at,
    clientIp: order.client_ip,
    userAgent: order.user_agent,
    tracking: parseTracking(order.tracking),
  };
}

async function pageUrlOf(
  db: Kysely<Database>,
  store: StoresTable,
  productId: string | null,
  publicUrl: string,
): Promise<string | null> {
  if (productId === null) return null;
  const product = await db
    .selectFrom('products')
    .select('slug')
    .where('store_id', '=', store.id)
    .where('id', '=', productId)
    .executeTakeFirst();
  return product ? new URL(`${PURCHASE_PAGE_PREFIX}/${store.handle}/${product.slug}`, publicUrl).href : null;
}

/**
 * What the events claimed together share, read once for all of them: their stores (a batch is
 * mostly one store's) and product pages. Fresh per claim, so a settings change counts from the next.
 */
export interface EventBatch {
  store(db: Kysely<Database>, id: string): Promise<StoresTable | undefined>;
  pageUrl(
    db: Kysely<Database>,
    store: StoresTable,
    productId: string | null,
    publicUrl: string,
  ): Promise<string | null>;
}

export function newEventBatch(): EventBatch {
  const stores = new Map<string, Promise<StoresTable | undefined>>();
  const pages = new Map<string, Promise<string | null>>();
  const once = <T>(cache: Map<string, Promise<T>>, key: string, read: () => Promise<T>) => {
    let value = cache.get(key);
    if (!value) cache.set(key, (value = read()));
    return value;
  };
  return {
    store: (db, id) => once(stores, id, () => findStore(db, id)),
    pageUrl: (db, store, productId, publicUrl) =>
      once(pages, `${store.id}/${productId}`, () => pageUrlOf(db, store, productId, publicUrl)),
  };
}

/**
 * What an event says, read when it is sent: the order (InitiateCheckout) or the sale and its page
 * order (Purchase), and the store's Meta settings as they are now.
 */
export async function loadEvent(
  db: Kysely<Database>,
  row: Pick<ConversionEventsTable, 'store_id' | 'kind' | 'event_id'>,
  publicUrl: string,
  batch: EventBatch = newEventBatch(),
): Promise<LoadedEvent> {
  const store = await batch.store(db, row.store_id);
  if (!store) return { store, source: null };
  if (row.kind === 'InitiateCheckout') {
    const order = await findOrder(db, row.store_id, row.event_id);
    if (!order) return { store, source: null };
    return {
      store,
      source: {
        kind: row.kind,
        eventId: order.id,
        occurredAt: order.created_at,
        amountCents: order.amount_cents,
        productIds: orderItems(order).map((item) => item.product_id),
        customer: customerOf(order.customer),
        order: orderPart(order),
        pageUrl: await batch.pageUrl(db, store, order.product_id, publicUrl),
      },
    };
  }
  const [sale, order] = await Promise.all([
    db
      .selectFrom('sales')
      .selectAll()
      .where('store_id', '=', row.store_id)
      .where('id', '=', row.event_id)
      .executeTakeFirst(),
    db
      .selectFrom('orders')
      .selectAll()
      .where('store_id', '=', row.store_id)
      .where('sale_id', '=', row.event_id)
      .executeTakeFirst(),
  ]);
  if (!sale) return { store, source: null };
  const items = sale.items === null ? [] : (JSON.parse(sale.items) as SaleItem[]);
  return {
    store,
    source: {
      kind: row.kind,
      eventId: sale.id,
      occurredAt: sale.created_at,
      amountCents: sale.amount_cents,
      productIds:
        items.length > 0 ? items.map((item) => item.product_id) : sale.product_id ? [sale.product_id] : [],
      customer: customerOf(sale.customer),
      order: order ? orderPart(order) : null,
      pageUrl: await batch.pageUrl(db, store, sale.product_id, publicUrl),
    },
  };
}
