/** The event catalogue (DESIGN §4). `webhook.test` is sent only by the test operation. */
export const EVENT_TYPES = [
  'checkout.created',
  'checkout.archived',
  'product.created',
  'product.updated',
  'product.archived',
  'pix.created',
  'pix.paid',
  'pix.expired',
  'sale.approved',
  'sale.refunded',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];
export type AnyEventType = EventType | 'webhook.test';
