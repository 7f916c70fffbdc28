import type { EventType, SubscribableEventType } from './event.js';
import type { ListParams, Timestamp } from './shared.js';

export type WebhookEndpointStatus = 'active' | 'paused' | 'disabled';

/** A receiver address for signed event notifications. */
export interface WebhookEndpoint {
  object: 'webhook_endpoint';
  id: string;
  url: string;
  description: string | null;
  status: WebhookEndpointStatus;
  events: SubscribableEventType[];
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** The creation and rotation responses, the only ones that carry the signing secret. */
export interface WebhookEndpointWithSecret extends WebhookEndpoint {
  /** `whsec_…`; store it now, it cannot be retrieved later. */
  secret: string;
}

export interface WebhookEndpointCreateParams {
  /** Public https address on port 443 or 8443. */
  url: string;
  /** At least one event type. */
  events: SubscribableEventType[];
  description?: string | null;
  status?: 'active' | 'paused';
}

export interface WebhookEndpointUpdateParams {
  url?: string;
  description?: string | null;
  events?: SubscribableEventType[];
  status?: WebhookEndpointStatus;
}

export interface WebhookEndpointRotateSecretParams {
  /** How long the current secret keeps signing beside the new one, 0..168 hours (0: it stops at once). Default 24. */
  expires_in_hours?: number;
}

export type WebhookEndpointListParams = ListParams;

export interface DeletedWebhookEndpoint {
  object: 'webhook_endpoint';
  id: string;
  deleted: true;
}

/** Answer to `test`: the queued `webhook.test` event. */
export interface WebhookTest {
  object: 'webhook_test';
  endpoint_id: string;
  event_id: string;
}

/** One delivery attempt. */
export interface WebhookDelivery {
  object: 'webhook_delivery';
  id: string;
  event_id: string;
  event_type: EventType;
  attempt: number;
  response_status: number | null;
  /**
   * Why the attempt failed, in a short sentence safe to show ("connection refused…", "no answer
   * within 10000 ms", "answered 500; only a 2xx counts as delivered"); null when it succeeded.
   */
  error: string | null;
  delivered_at: Timestamp | null;
  failed_at: Timestamp | null;
  next_retry_at: Timestamp | null;
  created_at: Timestamp;
}

/** Answer to `retryDelivery` (202); its fields are not fixed by the contract yet. */
export type WebhookDeliveryRetry = Record<string, unknown>;

export type WebhookDeliveryListParams = ListParams;
