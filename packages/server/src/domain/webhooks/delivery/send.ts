import type { Dispatcher } from 'undici';
import { postWebhook } from '../../../platform/outbound/post.js';
import type { WebhookPostResult } from '../../../platform/outbound/post.js';
import { SIGNATURE_HEADER, signPayload } from '../signature.js';

export const USER_AGENT = 'Storefront-Webhooks/1.0';
/** The event id in a header, so a receiver can deduplicate before parsing the body. */
export const EVENT_ID_HEADER = 'Service-Event-Id';

export interface Delivery {
  url: string;
  /** The endpoint's signing secrets: the current one, then the previous one during a rotation. */
  secrets: readonly string[];
  eventId: string;
  /** The stored event JSON, sent byte for byte: it is what the signature covers. */
  payload: string;
}

/** One signed POST. Signed now, not when queued, so a retry carries a fresh timestamp. */
export function sendDelivery(
  dispatcher: Dispatcher,
  delivery: Delivery,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<WebhookPostResult> {
  const timestamp = Math.floor(Date.now() / 1000);
  return postWebhook({
    dispatcher,
    url: delivery.url,
    body: delivery.payload,
    timeoutMs,
    ...(signal ? { signal } : {}),
    headers: {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      [EVENT_ID_HEADER.toLowerCase()]: delivery.eventId,
      [SIGNATURE_HEADER.toLowerCase()]: signPayload(delivery.secrets, timestamp, delivery.payload),
    },
  });
}
