import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import type { DbBool } from '../../platform/db/schema.js';
import { EventTypeSchema } from '../../platform/outbox/event-types.js';
import type { EventType } from '../../platform/outbox/event-types.js';
import { Nullable, Timestamp } from '../../platform/http/schemas.js';

export const ENDPOINT_STATUSES = ['active', 'paused', 'disabled'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

export interface WebhookEndpointsTable {
  id: string;
  store_id: string;
  /** Endpoints belong to the mode of the key that created them and receive only that mode's events. */
  livemode: DbBool;
  url: string;
  description: string | null;
  status: EndpointStatus;
  /** JSON array of subscribed event types. */
  events: string;
  /** The `whsec_…` secret sealed with the secret box, bound to the endpoint id. */
  secret_sealed: string;
  /** After a rotation: the secret it replaced, sealed the same way, still signing until the time below. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

declare module '../../platform/db/schema.js' {
  interface Tables {
    webhook_endpoints: WebhookEndpointsTable;
  }
}

export const StatusSchema = Type.Unsafe<EndpointStatus>({ type: 'string', enum: [...ENDPOINT_STATUSES] });

const endpointFields = {
  object: Type.Literal('webhook_endpoint'),
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  description: Nullable(Type.String()),
  status: StatusSchema,
  events: Type.Array(EventTypeSchema),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const WebhookEndpoint = Type.Object(endpointFields, {
  $id: 'WebhookEndpoint',
  title: 'Webhook endpoint',
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

/** The creation answer: the only place the signing secret ever appears. */
export const WebhookEndpointWithSecret = Type.Object(
  { ...endpointFields, secret: Type.String({ pattern: '^whsec_', description: 'Shown only now.' }) },
  { $id: 'WebhookEndpointWithSecret', title: 'Webhook endpoint with its secret' },
);

export function subscribedEvents(row: Pick<WebhookEndpointsTable, 'events'>): EventType[] {
  return JSON.parse(row.events) as EventType[];
}

export function toWebhookEndpoint(row: WebhookEndpointsTable): WebhookEndpoint {
  return {
    object: 'webhook_endpoint',
    id: row.id,
    url: row.url,
    description: row.description,
    status: row.status,
    events: subscribedEvents(row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
