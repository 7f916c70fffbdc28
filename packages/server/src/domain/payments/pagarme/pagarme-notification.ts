import type { CardNotification, CardNotificationRef } from '../card-provider.js';

/**
 * Which order a Pagar.me webhook is about: `{id: "hook_…", type, data}`, where `data` is the order
 * for `order.*` events and the charge for `charge.*` events (its order in `data.order`). Other
 * events (customers, subscriptions, recipients…) and charges of no order answer null.
 *
 * Pagar.me v5 webhooks carry no signature this service could verify, so a webhook is never
 * answered `forged`: what makes it safe is that nothing changes on its word, the order it names is
 * read back with `GET /orders/{id}` (with the store's secret key) before anything changes, and a
 * forged body can at most make us read an order again.
 */
export function readPagarmeNotification(notification: CardNotification): CardNotificationRef | null {
  let hook: { type?: unknown; data?: { id?: unknown; order?: { id?: unknown } | null } | null };
  try {
    hook = JSON.parse(notification.body) as typeof hook;
  } catch {
    return null;
  }
  if (hook === null || typeof hook !== 'object' || typeof hook.type !== 'string') return null;
  const orderId = hook.type.startsWith('order.')
    ? hook.data?.id
    : hook.type.startsWith('charge.')
      ? hook.data?.order?.id
      : undefined;
  return typeof orderId === 'string' && orderId.startsWith('or_') ? { pspId: orderId } : null;
}
