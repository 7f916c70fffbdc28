import type { Kysely } from 'kysely';
import type { CheckoutsTable } from '../../domain/checkouts/checkout-object.js';
import { findCheckout, findDefaultCheckout } from '../../domain/checkouts/checkouts-repository.js';
import type { CheckoutSettings } from '../../domain/checkouts/settings.js';
import type { Database } from '../../platform/db/schema.js';
import { currentItems } from '../../flows/delivery-content.js';
import { orderItems } from '../../domain/orders/order-object.js';
import type { OrdersTable } from '../../domain/orders/order-object.js';
import { findCharge } from '../../domain/pix/pix-charges-repository.js';
import { effectiveStatus } from '../../domain/pix/pix-charge-object.js';
import type { PixChargesTable } from '../../domain/pix/pix-charge-object.js';
import type { ProductsTable } from '../../domain/catalogue/product-object.js';
import { findActiveProductBySlug } from '../../domain/catalogue/products-repository.js';
import { SLUG_PATTERN } from '../../domain/catalogue/product-schemas.js';
import { HANDLE_PATTERN } from '../../platform/values/handle.js';
import { findStore, findStoreByAnyHandle } from '../../domain/stores/stores.js';
import type { StoresTable } from '../../domain/stores/stores.js';
import { httpUrl } from '../../platform/html/page-security.js';
import type { AccessLink } from './views/order-page.js';
import type { CardPaymentsTable } from '../../domain/card-payments/card-payment-object.js';
import { findCardPayment } from '../../domain/card-payments/card-payments-repository.js';
import { DECLINE_MESSAGES_PT } from '../../domain/kernel/card-outcome.js';

const SLUG = new RegExp(SLUG_PATTERN);
const COLOR = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i;

export interface PageProduct {
  store: StoresTable;
  product: ProductsTable;
}

export interface ProductPageData extends PageProduct {
  settings: CheckoutSettings;
}

/**
 * The active product at `/p/<handle>/<slug>` (the store's current handle or a previous one), or
 * null (a 404): what an order, a quote or the installments need.
 */
export async function loadPageProduct(
  db: Kysely<Database>,
  handle: string,
  slug: string,
): Promise<PageProduct | null> {
  if (!HANDLE_PATTERN.test(handle) || !SLUG.test(slug)) return null;
  // A previous handle finds its store too: the page redirects to the current handle, and a page
  // opened before the change still quotes and orders.
  const store = (await findStoreByAnyHandle(db, handle))?.store;
  if (!store) return null;
  const product = await findActiveProductBySlug(db, store.id, slug);
  return product ? { store, product } : null;
}

/** The page's product, as `loadPageProduct` finds it, with its checkout's look. */
export async function loadProductPage(
  db: Kysely<Database>,
  handle: string,
  slug: string,
): Promise<ProductPageData | null> {
  const found = await loadPageProduct(db, handle, slug);
  return found && { ...found, settings: await checkoutSettingsOf(db, found.product) };
}

/** The product's own checkout, or the store's default one (archiving a checkout unlinks its products). */
async function checkoutSettingsOf(db: Kysely<Database>, product: ProductsTable): Promise<CheckoutSettings> {
  const own: CheckoutsTable | undefined = product.checkout_id
    ? await findCheckout(db, product.store_id, product.checkout_id)
    : undefined;
  const checkout = own && own.archived === 0 ? own : await findDefaultCheckout(db, product.store_id);
  return JSON.parse(checkout.settings_json) as CheckoutSettings;
}

/** The page's look: its background as CSS built only from a validated colour, and its image. */
export function backgroundOf(settings: CheckoutSettings): { style: string; image: string | null } {
  const color =
    settings.checkout_fundo_cor && COLOR.test(settings.checkout_fundo_cor)
      ? settings.checkout_fundo_cor
      : '#F5F5F5';
  if (settings.checkout_fundo_tipo === 'gradiente') {
    return { style: `body{background:linear-gradient(160deg,${color} 0%,#ffffff 100%) fixed}`, image: null };
  }
  const image = settings.checkout_fundo_tipo === 'imagem' ? httpUrl(settings.checkout_fundo_imagem) : null;
  return { style: `body{background-color:${color}}`, image };
}

/** The origins of the images a page shows, for its CSP: nothing else may load from elsewhere. */
export function imageOrigins(urls: (string | null)[]): string[] {
  const origins = new Set<string>();
  for (const url of urls) if (url !== null) origins.add(new URL(url).origin);
  return [...origins];
}

/** The columns of an order's card payment the page shows. */
export type OrderCardPayment = Pick<
  CardPaymentsTable,
  | 'status'
  | 'decline_code'
  | 'next_action_url'
  | 'installments'
  | 'installment_amount_cents'
  | 'total_amount_cents'
>;

export interface OrderState {
  /**
   * `canceled`: the store canceled the charge (the API's cancel); the page offers no new Pix. An order
   * paid by card: `requires_action` (3-D Secure waits), `processing` (the issuer decides later),
   * `declined` (the page says why and offers Pix for the same order).
   */
  status: 'pending' | 'paid' | 'expired' | 'canceled' | 'requires_action' | 'processing' | 'declined';
  charge: PixChargesTable | null;
  card: OrderCardPayment | null;
  /** Once paid, each bought product's access link (the order bump's too), http(s) only; else none. */
  accessLinks: AccessLink[];
}

/**
 * The one rule of an order's status, on rows already read: paid once its sale exists, else its card
 * payment's while it has no Pix, else its current charge's status as a reader sees it (an order with
 * no charge left to pay is offered a new Pix).
 */
export function orderStatusOf(
  order: Pick<OrdersTable, 'status' | 'pix_charge_id'>,
  charge: Pick<PixChargesTable, 'status' | 'expires_at'> | null,
  card: Pick<CardPaymentsTable, 'status'> | null = null,
): OrderState['status'] {
  if (order.status === 'paid') return 'paid';
  if (order.status === 'canceled') return 'canceled';
  if (order.pix_charge_id === null && card) {
    // An approval completes the order in its own transaction; anything else undecided is processing.
    return card.status === 'requires_action' || card.status === 'declined' ? card.status : 'processing';
  }
  // Pending or abandoned: the charge decides (an expired one, abandoned or not, can be renewed).
  const chargeStatus = charge ? effectiveStatus(charge) : null;
  return chargeStatus === 'pending' || chargeStatus === 'canceled' ? chargeStatus : 'expired';
}

/** Where an order stands, read fresh: paid, or its current charge's status as a reader sees it. */
export async function orderState(db: Kysely<Database>, order: OrdersTable): Promise<OrderState> {
  const scope = { storeId: order.store_id, livemode: order.livemode === 1 };
  const charge =
    order.pix_charge_id === null ? null : ((await findCharge(db, scope, order.pix_charge_id)) ?? null);
  const card =
    order.card_payment_id === null
      ? null
      : ((await findCardPayment(db, scope, order.card_payment_id)) ?? null);
  const status = orderStatusOf(order, charge, card);
  return { status, charge, card, accessLinks: status === 'paid' ? await accessLinksOf(db, order) : [] };
}

/** What the buyer reads for a declined card, in Portuguese. */
export const declineMessageOf = (card: Pick<CardPaymentsTable, 'decline_code'>): string =>
  DECLINE_MESSAGES_PT[card.decline_code ?? 'issuer_declined'];

/** A paid order's access links: each bought product's (the order bump's too), http(s) only. */
export async function accessLinksOf(db: Kysely<Database>, order: OrdersTable): Promise<AccessLink[]> {
  const items = await currentItems(db, order.store_id, orderItems(order));
  return items.flatMap((item) => {
    const url = httpUrl(item.linkAcesso);
    return url === null ? [] : [{ name: item.nome, url }];
  });
}

export function storeOf(db: Kysely<Database>, order: OrdersTable) {
  return findStore(db, order.store_id);
}
