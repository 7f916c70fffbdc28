import type { Kysely } from 'kysely';
import { countOrder } from '../domain/analytics/daily-totals.js';
import { CouponRefused, holdCoupon } from '../domain/coupons/coupon-holds.js';
import type { UsableCoupon } from '../domain/coupons/coupon-holds.js';
import type { Config } from '../platform/config/config.js';
import type { DeliveryMail } from '../domain/accounts/test-mail-policy.js';
import type { Database } from '../platform/db/schema.js';
import { createCharge, retryKeyOf } from './create-charge.js';
import type { CreateChargeOptions } from './create-charge.js';
import { ProviderError } from '../domain/payments/provider-errors.js';
import type { PaymentProviders } from '../domain/payments/payment-providers.js';
import { createSubscription } from './create-subscription.js';
import type { SubscriptionCustomer } from './create-subscription.js';
import { findSubscriptionStartedBy } from '../domain/subscriptions/subscriptions-repository.js';
import type { Customer } from '../domain/kernel/customer.js';
import { findCharge } from '../domain/pix/pix-charges-repository.js';
import { effectiveStatus } from '../domain/pix/pix-charge-object.js';
import type { ProductsTable } from '../domain/catalogue/product-object.js';
import { findProduct } from '../domain/catalogue/products-repository.js';
import { countSkippedEmail } from './queue-delivery-email.js';
import { approveSale } from './approve-sale.js';
import type { Sale } from '../domain/sales/sale-object.js';
import { newUuid } from '../platform/values/ids.js';
import { fromCents, toCents } from '../platform/values/money.js';
import { isoAfter, nowIso } from '../platform/values/time.js';
import type { StoresTable } from '../domain/stores/stores.js';
import { hashOrderToken, newOrderToken, orderCoupon, orderItems } from '../domain/orders/order-object.js';
import type { OrdersTable } from '../domain/orders/order-object.js';
import { sealOrderToken } from '../domain/orders/order-links.js';
import { recordOrderEvent } from './record-order-event.js';
import type { OrderLinkConfig } from '../domain/orders/order-links.js';
import { completeOrder } from './complete-order.js';
import { priceOrder } from './price-order.js';
import type { OrderPrice } from './price-order.js';
import {
  claimRenewal,
  deleteOrder,
  insertOrder,
  setOrderCardPayment,
  setOrderCharge,
} from '../domain/orders/orders-repository.js';
import { UNPAID } from '../domain/kernel/order-status.js';
import type { Tracking } from '../domain/kernel/tracking.js';
import type { CardPayment } from '../domain/card-payments/card-payment-object.js';
import { findCardPayment } from '../domain/card-payments/card-payments-repository.js';
import { createCardPayment } from './create-card-payment.js';
import type { CreateCardPaymentOptions, NewCardPayment } from './create-card-payment.js';

/** How long a buyer has to pay an order's Pix; an expired one can be renewed from the order page. */
export const ORDER_PIX_SECONDS = 30 * 60;

export { CouponRefused };

export interface NewOrder {
  store: StoresTable;
  product: ProductsTable;
  customer: Customer;
  bump: boolean;
  coupon?: string | undefined;
  /** The campaign parameters of the page's URL, as kept (`cleanTracking`). */
  tracking: Tracking;
  /** The buyer's request as the server saw it. */
  client: { ip: string; userAgent: string | null };
  /** A free order's delivery e-mail (its sale is approved at once), and the order page's link. */
  config: PlaceOrderConfig;
  /** Paying by card (the PSP's single-use token and the chosen installments) instead of Pix. */
  card?: OrderCard | undefined;
}

/** What the page's card tab sends: never a card number, only the token the PSP's script made. */
export interface OrderCard {
  token: string;
  installments: number;
  brand: string | null;
  issuerId: string | null;
}

export interface PlacedOrder {
  token: string;
  /** The order's card payment as the PSP answered it (approved, declined, 3-D Secure…); null for Pix. */
  cardPayment: CardPayment | null;
}

export type PlaceOrderConfig = Pick<Config, 'smtp' | 'testMailAllow'> & OrderLinkConfig;

/** The bump a product offers on its page: enabled, and naming an active product of the store. */
export async function offeredBump(
  db: Kysely<Database>,
  product: ProductsTable,
): Promise<ProductsTable | null> {
  if (product.order_bump_enabled !== 1 || product.order_bump_product_id === null) return null;
  const bump = await findProduct(db, product.store_id, product.order_bump_product_id);
  return bump && bump.ativo === 1 ? bump : null;
}

/**
 * Places a purchase-page order: the price of the product (less the coupon, never below 0) plus the
 * bump when taken. A paid total gets an ordinary Pix charge in the store's checkout mode, made by the
 * same service the API uses, or (`card`) a card payment through the API's own card service, which
 * completes the order in its transaction when approved; a total of 0 completes at once with a `free`
 * sale. Returns the order token, the only key to the order's page, and the card payment if any.
 */
export async function placeOrder(
  db: Kysely<Database>,
  payments: PaymentProviders,
  input: NewOrder,
): Promise<PlacedOrder> {
  const { store, product } = input;
  // A recurring product is sold as a subscription: its price each period, no bump, no coupon.
  const recurring = product.recorrencia !== null;
  if (recurring && input.coupon) throw new CouponRefused('Cupons não valem para assinaturas.');
  // A subscription is Pix Automático: its first charge authorises the next ones, which a card cannot.
  const card = recurring ? undefined : input.card;
  const bump = input.bump && !recurring ? await offeredBump(db, product) : null;
  const token = newOrderToken();
  const now = new Date();
  const newRow = (price: OrderPrice, held: UsableCoupon | null) =>
    orderRow(input, { token, now, price, held, method: card ? 'card' : 'pix' });
  if (!card && !recurring && !input.coupon) {
    const price = priceOrder(product, bump, null);
    if (price.totalCents > 0) {
      // Nothing to hold before asking for the Pix: the order, its count and `order.created` are
      // written with the charge, in its one transaction.
      const row = newRow(price, null);
      await chargeOrder(db, payments, row, {
        store,
        product,
        withCharge: async (trx, charge) => {
          const placed = { ...row, pix_charge_id: charge.id, hold_until: charge.expires_at };
          await insertOrder(trx, placed);
          await recordOrderEvent(trx, input.config, 'order.created', placed, token);
          await countOrder(trx, placed);
        },
      });
      return { token, cardPayment: null };
    }
  }
  const { order, sale } = await db.transaction().execute(async (trx) => {
    const held = input.coupon
      ? await holdCoupon(trx, {
          storeId: store.id,
          code: input.coupon,
          productId: product.id,
          priceCents: product.preco_cents,
        })
      : null;
    const row = newRow(priceOrder(product, bump, held), held);
    await insertOrder(trx, row);
    await countOrder(trx, row);
    if (row.amount_cents === 0) {
      // A free test-mode order is an anonymous visitor's act, like the page's simulate: no relay.
      const mail =
        row.livemode === 1 ? input.config : { ...input.config, onlyTo: input.config.testMailAllow };
      const free = await approveFreeOrder(trx, row, mail);
      await recordOrderEvent(trx, input.config, 'order.created', free.order, token);
      return { order: row, sale: free.sale };
    }
    return { order: row, sale: null };
  });
  if (sale) countSkippedEmail(sale);
  let cardPayment: CardPayment | null = null;
  if (order.amount_cents > 0) {
    try {
      if (card) {
        // The order exists for the API once its payment does: pointing at it and `order.created`
        // commit with the payment, before an approval's events.
        cardPayment = await payOrderByCard(
          db,
          payments,
          store,
          order,
          card,
          input.config,
          async (trx, payment) => {
            const placed = await setOrderCardPayment(trx, order, payment.id);
            return recordOrderEvent(trx, input.config, 'order.created', placed, token);
          },
        );
      } else {
        // The order exists for the API once its Pix does: it and `order.created` commit together.
        const announce = async (trx: Kysely<Database>, charge: { id: string; expires_at: string }) => {
          const placed = await setOrderCharge(trx, order, charge.id, charge.expires_at);
          await recordOrderEvent(trx, input.config, 'order.created', placed, token);
        };
        if (recurring) {
          const charge = await subscribeOrder(db, payments, order);
          await db.transaction().execute((trx) => announce(trx, charge));
        } else {
          await chargeOrder(db, payments, order, { store, product, withCharge: announce });
        }
      }
    } catch (error) {
      // No charge, no order: the coupon's hold and its count go with it, and the buyer may try again.
      await db.transaction().execute(async (trx) => {
        await deleteOrder(trx, order);
        await countOrder(trx, order, -1);
      });
      throw error;
    }
  }
  return { token, cardPayment };
}

/** A new order's row: pending, priced, held for the Pix's time (ORDER_PIX_SECONDS) from `now`. */
function orderRow(
  input: NewOrder,
  order: { token: string; now: Date; price: OrderPrice; held: UsableCoupon | null; method: 'pix' | 'card' },
): OrdersTable {
  const { store, product } = input;
  const { price, held, now } = order;
  const id = newUuid();
  return {
    id,
    store_id: store.id,
    token_hash: hashOrderToken(order.token),
    token_sealed: sealOrderToken(input.config, id, order.token),
    livemode: store.checkout_mode === 'live' ? 1 : 0,
    status: 'pending',
    product_id: product.id,
    items: JSON.stringify(price.items),
    coupon_id: held?.coupon.id ?? null,
    coupon: price.coupon === null ? null : JSON.stringify(price.coupon),
    amount_cents: price.totalCents,
    customer: JSON.stringify(input.customer),
    tracking: JSON.stringify(input.tracking),
    pix_charge_id: null,
    payment_method: order.method,
    card_payment_id: null,
    hold_until: isoAfter(ORDER_PIX_SECONDS * 1000, now),
    sale_id: null,
    created_at: now.toISOString(),
    paid_at: null,
    abandoned_at: null,
    recovered: 0,
    recovery_email_status: null,
    recovery_email_sent_at: null,
    recovery_email_last_error: null,
    client_ip: input.client.ip,
    user_agent: input.client.userAgent?.slice(0, 1000) ?? null,
  };
}

/**
 * Charges the order's card through the API's own card service, linked to the order (an approval
 * completes it in the payment's transaction). The idempotency key is the order's id: a retried call
 * for this order reaches the PSP with the same key and charges once. A test-mode sale is an anonymous
 * visitor's act, like the page's simulate: its e-mail goes only to the store's team and the allow list.
 */
async function payOrderByCard(
  db: Kysely<Database>,
  payments: PaymentProviders,
  store: StoresTable,
  order: OrdersTable,
  card: OrderCard,
  config: PlaceOrderConfig,
  withPayment: CreateCardPaymentOptions['withPayment'],
): Promise<CardPayment> {
  const scope = { storeId: order.store_id, livemode: order.livemode === 1 };
  const items = orderItems(order);
  const main = items.find((item) => item.kind === 'product')!;
  const coupon = orderCoupon(order);
  const input: NewCardPayment = {
    amountCents: order.amount_cents,
    installments: card.installments,
    token: card.token,
    brand: card.brand,
    issuerId: card.issuerId,
    customer: JSON.parse(order.customer) as NewCardPayment['customer'],
    description: main.nome.slice(0, 140),
    externalId: null,
    metadata: {
      order_id: order.id,
      product_id: main.product_id,
      product: main.nome.slice(0, 500),
      ...(coupon && { coupon: coupon.code }),
    },
    tracking: JSON.parse(order.tracking) as Tracking,
    productId: main.product_id,
    orderId: order.id,
    items: items.map((item) => ({
      code: item.product_id,
      description: item.nome.slice(0, 140),
      amountCents: toCents(item.amount),
      quantity: 1,
    })),
  };
  const mail = order.livemode === 1 ? config : { ...config, onlyTo: config.testMailAllow };
  const { payment } = await createCardPayment(db, payments, scope, store, input, {
    idempotencyKey: `order:${order.id}`,
    publicUrl: config.publicUrl,
    mail,
    withPayment,
  });
  return payment;
}

/**
 * A total of 0 needs no payment: the sale is approved at once, in the order's own transaction.
 * Returns the order, paid, and its sale.
 */
async function approveFreeOrder(
  trx: Kysely<Database>,
  order: OrdersTable,
  mail: DeliveryMail,
): Promise<{ order: OrdersTable; sale: Sale }> {
  const saleId = newUuid();
  const now = nowIso();
  const { order: paid, sale: fromOrder } = await completeOrder(trx, order, saleId, now);
  const sale = await approveSale(
    trx,
    {
      id: saleId,
      store_id: order.store_id,
      livemode: order.livemode,
      amount_cents: 0,
      payment_method: 'free',
      pix_charge_id: null,
      pix_end_to_end_id: null,
      ...fromOrder,
      customer: order.customer,
      tracking: order.tracking,
      created_at: now,
    },
    mail,
  );
  return { order: paid ?? order, sale };
}

/**
 * Creates the order's Pix through the API's own charge service; `options.withCharge` points the order
 * at it in the charge's own transaction.
 */
async function chargeOrder(
  db: Kysely<Database>,
  payments: PaymentProviders,
  order: OrdersTable,
  options: Pick<CreateChargeOptions, 'store' | 'product' | 'withCharge'>,
) {
  const items = orderItems(order);
  const main = items.find((item) => item.kind === 'product')!;
  const bump = items.find((item) => item.kind === 'order_bump');
  const coupon = orderCoupon(order);
  const { charge } = await createCharge(
    db,
    payments,
    { storeId: order.store_id, livemode: order.livemode === 1 },
    {
      amount: fromCents(order.amount_cents),
      product_id: main.product_id,
      description: main.nome.slice(0, 140),
      expires_in: ORDER_PIX_SECONDS,
      customer: JSON.parse(order.customer) as Customer,
      metadata: {
        order_id: order.id,
        product_id: main.product_id,
        product: main.nome.slice(0, 500),
        ...(bump && { order_bump_product_id: bump.product_id, order_bump: bump.nome.slice(0, 500) }),
        ...(coupon && { coupon: coupon.code }),
      },
      tracking: JSON.parse(order.tracking) as Tracking,
    },
    options,
  ).catch((error: unknown) => {
    if (error instanceof ProviderError) error.attempt.orderId = order.id;
    throw error;
  });
  return charge;
}

/**
 * A recurring product's order: a subscription through the API's own service, whose first charge
 * (paying the first period and authorising the rest) becomes the order's Pix. The buyer sending the
 * same order again after a failure (same product, same buyer) resumes the unfinished creation at
 * the PSP rather than making a second authorisation.
 */
async function subscribeOrder(db: Kysely<Database>, payments: PaymentProviders, order: OrdersTable) {
  const scope = { storeId: order.store_id, livemode: order.livemode === 1 };
  const body = {
    product_id: order.product_id,
    customer: JSON.parse(order.customer) as SubscriptionCustomer,
  };
  const created = await createSubscription(
    db,
    payments,
    scope,
    { ...body, tracking: JSON.parse(order.tracking) as Tracking },
    { orderId: order.id, retryKey: `page:${retryKeyOf(scope, 'purchase-page', body)!}` },
  );
  return created.first_charge;
}

/**
 * Whether the order may get a new Pix: its Pix expired unpaid, or (paying by card) its card was
 * declined, when the buyer pays the same order by Pix instead.
 */
async function renewable(db: Kysely<Database>, order: OrdersTable): Promise<boolean> {
  const scope = { storeId: order.store_id, livemode: order.livemode === 1 };
  if (order.pix_charge_id === null) {
    if (order.card_payment_id === null) return false;
    return (await findCardPayment(db, scope, order.card_payment_id))?.status === 'declined';
  }
  const current = await findCharge(db, scope, order.pix_charge_id);
  if (current === undefined || effectiveStatus(current) !== 'expired') return false;
  // A subscription's first charge authorises it too: a new one is a new subscription, from the product page.
  return (await findSubscriptionStartedBy(db, current)) === undefined;
}

/**
 * A new Pix for an order whose charge expired unpaid (same order, same token), an abandoned one too,
 * or whose card was declined: paying it completes (or recovers) the order. A limited coupon must
 * still have a redemption to hold, or the buyer is told to order again. Several clicks at once make
 * one charge. Returns false when there was nothing to renew.
 */
export async function renewOrderCharge(
  db: Kysely<Database>,
  payments: PaymentProviders,
  order: OrdersTable,
): Promise<boolean> {
  if (!UNPAID.includes(order.status) || !(await renewable(db, order))) return false;
  const holdUntil = isoAfter(ORDER_PIX_SECONDS * 1000);
  const claimed = await db.transaction().execute(async (trx) => {
    if (order.coupon_id !== null) {
      const main = orderItems(order).find((item) => item.kind === 'product')!;
      await holdCoupon(trx, {
        storeId: order.store_id,
        code: orderCoupon(order)!.code,
        productId: order.product_id,
        priceCents: toCents(main.amount),
        exceptOrderId: order.id,
      });
    }
    return claimRenewal(trx, order, holdUntil);
  });
  if (claimed) {
    await chargeOrder(db, payments, order, {
      withCharge: (trx, charge) => setOrderCharge(trx, order, charge.id, charge.expires_at),
    });
  }
  return claimed;
}
