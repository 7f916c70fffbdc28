import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { AnyEventTypeSchema } from '../../platform/outbox/event-types.js';
import type { AnyEventType } from '../../platform/outbox/event-types.js';
import { Nullable, Timestamp } from '../../platform/http/schemas.js';

/** One row per delivery attempt; only the last HISTORY_LIMIT per endpoint are kept. */
export interface WebhookDeliveriesTable {
  id: string;
  store_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  response_status: number | null;
  /** Why the attempt failed (migration 0005); null on success and for attempts recorded before it. */
  error: string | null;
  delivered_at: string | null;
  failed_at: string | null;
  next_retry_at: string | null;
  created_at: string;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    webhook_deliveries: WebhookDeliveriesTable;
  }
}

export const HISTORY_LIMIT = 20;
export const DELIVERY_ID_PREFIX = 'whd';

export const WebhookDelivery = Type.Object(
  {
    object: Type.Literal('webhook_delivery'),
    id: Type.String({ example: 'whd_3k9VqR2mXbT7pLw0sYc4NnHd' }),
    event_id: Type.String({ example: 'evt_8mZ0b2kqP1sXw4TnYc7H1aQe' }),
    event_type: AnyEventTypeSchema,
    attempt: Type.Integer({ minimum: 1, description: '1 for the first attempt, then 2, 3… for retries.' }),
    response_status: Nullable(
      Type.Integer({ description: 'null when no response arrived (timeout, refused).' }),
    ),
    error: Nullable(
      Type.String({
        description:
          'Why the attempt failed, in a short sentence safe to show (for example "connection refused…", "no answer within 10000 ms", "TLS error: CERT_HAS_EXPIRED…", "answered 500; only a 2xx counts as delivered"); null when it succeeded.',
        example: 'connection refused: nothing accepts connections at that address and port',
      }),
    ),
    delivered_at: Nullable(Timestamp),
    failed_at: Nullable(Timestamp),
    next_retry_at: Nullable(Timestamp),
    created_at: Timestamp,
  },
  { $id: 'WebhookDelivery', title: 'Webhook delivery attempt' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export function toWebhookDelivery(row: WebhookDeliveriesTable): WebhookDelivery {
  return {
    object: 'webhook_delivery',
    id: row.id,
    event_id: row.event_id,
    // Copied from the outbox, which only ever records types of the catalogue.
    event_type: row.event_type as AnyEventType,
    attempt: row.attempt,
    response_status: row.response_status,
    error: row.error,
    delivered_at: row.delivered_at,
    failed_at: row.failed_at,
    next_retry_at: row.next_retry_at,
    created_at: row.created_at,
  };
}
