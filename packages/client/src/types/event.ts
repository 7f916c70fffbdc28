import type { CardPayment } from './card-payment.js';
import type { Checkout } from './checkout.js';
import type { OrderEventObject } from './order.js';
import type { PixCharge } from './pix.js';
import type { Product } from './product.js';
import type { Sale } from './sale.js';
import type { Subscription } from './subscription.js';
import type { ListParams, Timestamp } from './shared.js';

/** The object each event type carries in `data.object` (the event catalogue of API 1.3.0). */
export interface EventObjects {
  'checkout.created': Checkout;
  'checkout.archived': Checkout;
  'checkout.updated': Checkout;
  'product.created': Product;
  'product.updated': Product;
  'product.archived': Product;
  'pix.created': PixCharge;
  'pix.paid': PixCharge;
  'pix.expired': PixCharge;
  'pix.canceled': PixCharge;
  'sale.approved': Sale;
  'sale.refunded': Sale;
  'sale.refund_failed': Sale;
  /** API 1.2.0: the order and the absolute URL of its page. */
  'order.created': OrderEventObject;
  'order.abandoned': OrderEventObject;
  'subscription.created': Subscription;
  'subscription.activated': Subscription;
  'subscription.renewed': Subscription;
  'subscription.past_due': Subscription;
  'subscription.canceled': Subscription;
  /** API 1.3.0: card payments, then `sale.approved` for an approved one as for Pix. */
  'card_payment.approved': CardPayment;
  'card_payment.declined': CardPayment;
  'card_payment.requires_action': CardPayment;
  'card_payment.refunded': CardPayment;
  /** The buyer disputed a card payment and the PSP took the money back: the sale is `charged_back`. */
  'sale.charged_back': Sale;
  /** Sent only by `webhookEndpoints.test`; its payload is not part of the contract. */
  'webhook.test': Record<string, unknown>;
}

export type EventType = keyof EventObjects;

/** What an endpoint can subscribe to: `webhook.test` is sent only by the test operation. */
export type SubscribableEventType = Exclude<EventType, 'webhook.test'>;

interface EventOf<Type extends EventType> {
  /** Starts with `evt_`; deduplicate deliveries by it. */
  id: string;
  object: 'event';
  type: Type;
  created_at: Timestamp;
  livemode: boolean;
  data: { object: EventObjects[Type] };
}

/** An event; checking `type` narrows `data.object` to the matching resource. */
export type Event = { [Type in EventType]: EventOf<Type> }[EventType];

export interface EventListParams extends ListParams {
  /** Only events of this type. */
  type?: EventType;
}
