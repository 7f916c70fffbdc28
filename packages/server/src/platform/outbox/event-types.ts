import { Type } from '@sinclair/typebox';

/**
 * The event catalogue. `webhook.test` is sent only by the test operation. API 1.1.0 added
 * `checkout.updated`, `pix.canceled` and `sale.refund_failed`; API 1.2.0 `order.created` and
 * `order.abandoned` (their object is the order with its `order_url`), and the `subscription.*` events;
 * API 1.3.0 the `card_payment.*` events and `sale.charged_back`.
 */
export const EVENT_TYPES = [
  'checkout.created',
  'checkout.archived',
  'checkout.updated',
  'product.created',
  'product.updated',
  'product.archived',
  'pix.created',
  'pix.paid',
  'pix.expired',
  'pix.canceled',
  'sale.approved',
  'sale.refunded',
  'sale.refund_failed',
  'order.created',
  'order.abandoned',
  'subscription.created',
  'subscription.activated',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.canceled',
  'card_payment.approved',
  'card_payment.declined',
  'card_payment.requires_action',
  'card_payment.refunded',
  'sale.charged_back',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export type AnyEventType = EventType | 'webhook.test';

/**
 * The catalogue as schemas: an `enum` rather than a union of literals, so a wrong value gets one
 * readable error and the OpenAPI document and clients see the exact set.
 */
export const EventTypeSchema = Type.Unsafe<EventType>({
  type: 'string',
  enum: [...EVENT_TYPES],
  description: 'An event type of the catalogue.',
});

/** Any event that can exist, `webhook.test` included (listings, deliveries). */
export const AnyEventTypeSchema = Type.Unsafe<AnyEventType>({
  type: 'string',
  enum: [...EVENT_TYPES, 'webhook.test'],
  example: 'pix.paid',
});
