import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { OnWrite } from '../kernel/write-context.js';
import type { EventType } from '../../platform/outbox/event-types.js';
import { recordEvent } from '../../platform/outbox/outbox.js';
import type { StorefrontEvent } from '../../platform/outbox/outbox.js';
import type { SecretBox } from '../../platform/values/secret-box.js';
import { newUuid } from '../../platform/values/ids.js';
import { nowIso } from '../../platform/values/time.js';
import { DELIVERY_ID_PREFIX } from './delivery-object.js';
import type { WebhookDeliveriesTable } from './delivery-object.js';
import { enqueueNow } from './delivery-jobs.js';
import { toWebhookEndpoint } from './endpoint-object.js';
import type { EndpointStatus, WebhookEndpointsTable } from './endpoint-object.js';
import { MAX_ENDPOINTS_PER_STORE, countStoreEndpoints, insertEndpoint } from './endpoints-repository.js';
import type { EndpointScope } from './endpoints-repository.js';
import { generateWebhookSecret } from './signature.js';

/**
 * What the API routes and the dashboard both do to endpoints, so a rule exists once. Each failure
 * is a WebhookRuleError with a code; the API turns it into its error envelope, the dashboard into
 * a message in Portuguese.
 */
export class WebhookRuleError extends Error {
  constructor(
    readonly code: 'endpoint_limit' | 'endpoint_inactive',
    message: string,
  ) {
    super(message);
  }
}

export interface NewEndpointInput {
  url: string;
  events: EventType[];
  description?: string | null;
  status?: 'active' | 'paused';
}

/** Same types in the order first given, each once. */
export const foldEvents = (events: EventType[]): EventType[] => [...new Set(events)];

/**
 * Creates an endpoint inside the caller's transaction (the URL already checked by the caller
 * against the URL policy). The secret is returned once and stored only sealed.
 */
export async function createEndpoint(
  trx: Kysely<Database>,
  secretBox: SecretBox,
  scope: EndpointScope,
  input: NewEndpointInput,
): Promise<{ row: WebhookEndpointsTable; secret: string }> {
  if ((await countStoreEndpoints(trx, scope.storeId)) >= MAX_ENDPOINTS_PER_STORE) {
    throw new WebhookRuleError(
      'endpoint_limit',
      `A store can have at most ${MAX_ENDPOINTS_PER_STORE} webhook endpoints.`,
    );
  }
  const id = newUuid();
  const secret = generateWebhookSecret();
  const now = nowIso();
  const row: WebhookEndpointsTable = {
    id,
    store_id: scope.storeId,
    livemode: scope.livemode ? 1 : 0,
    url: input.url,
    description: input.description ?? null,
    status: input.status ?? 'active',
    events: JSON.stringify(foldEvents(input.events)),
    secret_sealed: secretBox.seal(secret, id),
    previous_secret_sealed: null,
    previous_secret_expires_at: null,
    failing_since: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await insertEndpoint(trx, row);
  return { row, secret };
}

/** Test sends and manual resends go only to endpoints that currently receive deliveries. */
function assertActive(row: { status: EndpointStatus }): void {
  if (row.status !== 'active') {
    throw new WebhookRuleError(
      'endpoint_inactive',
      `The webhook endpoint is ${row.status}; only active endpoints receive deliveries.`,
    );
  }
}

/** Queues a signed `webhook.test` event for this endpoint only. */
export async function queueTestEvent(
  db: Kysely<Database>,
  row: WebhookEndpointsTable,
  onWrite?: OnWrite,
): Promise<StorefrontEvent> {
  assertActive(row);
  return db.transaction().execute(async (trx) => {
    // Nobody can subscribe to webhook.test, so the dispatcher fans it out to no one: this job is its only delivery.
    const recorded = await recordEvent(trx, {
      storeId: row.store_id,
      type: 'webhook.test',
      livemode: row.livemode === 1,
      object: toWebhookEndpoint(row),
    });
    await enqueueNow(trx, { storeId: row.store_id, endpointId: row.id, eventId: recorded.id });
    await onWrite?.(trx);
    return recorded;
  });
}

/** One delivery attempt of this endpoint (of its store), or undefined. */
export async function findDelivery(
  db: Kysely<Database>,
  row: WebhookEndpointsTable,
  deliveryId: string,
): Promise<WebhookDeliveriesTable | undefined> {
  if (!deliveryId.startsWith(`${DELIVERY_ID_PREFIX}_`)) return undefined;
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('store_id', '=', row.store_id)
    .where('endpoint_id', '=', row.id)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
}

/** Sends that delivery's event to the endpoint again, now, as a new attempt. */
export async function retryDelivery(
  db: Kysely<Database>,
  row: WebhookEndpointsTable,
  delivery: WebhookDeliveriesTable,
  onWrite?: OnWrite,
): Promise<void> {
  assertActive(row);
  const { last } = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.max('attempt').as('last'))
    .where('endpoint_id', '=', row.id)
    .where('event_id', '=', delivery.event_id)
    .executeTakeFirstOrThrow();
  await db.transaction().execute(async (trx) => {
    await enqueueNow(trx, {
      storeId: row.store_id,
      endpointId: row.id,
      eventId: delivery.event_id,
      attempts: Number(last ?? delivery.attempt),
      manual: true,
    });
    await onWrite?.(trx);
  });
}

/** The last attempts of an endpoint, newest first (the history keeps 20 per endpoint). */
export function deliveriesQuery(db: Kysely<Database>, row: Pick<WebhookEndpointsTable, 'id' | 'store_id'>) {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('store_id', '=', row.store_id)
    .where('endpoint_id', '=', row.id);
}
