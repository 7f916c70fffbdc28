import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import type { AnyEventType } from '../../../platform/outbox/event-types.js';
import type { EventsTable } from '../../../platform/outbox/outbox.js';
import type { WebhookEndpointsTable } from '../../../domain/webhooks/endpoint-object.js';
import type { WebhookDeliveriesTable } from '../../../domain/webhooks/delivery-object.js';
import { deliveriesQuery } from '../../../domain/webhooks/endpoint-service.js';
import { auditCursor } from '../settings/settings-data.js';

export const EVENTS_PAGE_SIZE = 50;

/** A store's endpoints in both modes, newest first (at most 10 a store: no paging needed). */
export function storeEndpoints(db: Kysely<Database>, storeId: string): Promise<WebhookEndpointsTable[]> {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** An endpoint's kept attempts (the last 20), newest first. */
export function endpointDeliveries(
  db: Kysely<Database>,
  row: WebhookEndpointsTable,
): Promise<WebhookDeliveriesTable[]> {
  return deliveriesQuery(db, row).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
}

export interface EventsPage {
  events: Pick<EventsTable, 'id' | 'type' | 'livemode' | 'payload' | 'created_at'>[];
  /** The `antes` of the next page, when there is one. */
  next: string | null;
}

/** The store's events, both modes, newest first, filtered by type in the database, a page at a time. */
export async function storeEvents(
  db: Kysely<Database>,
  storeId: string,
  filter: { type?: AnyEventType | undefined; before?: string | undefined },
): Promise<EventsPage> {
  const cursor = auditCursor(filter.before);
  const rows = await db
    .selectFrom('events')
    .select(['id', 'type', 'livemode', 'payload', 'created_at'])
    .where('store_id', '=', storeId)
    .$if(filter.type !== undefined, (q) => q.where('type', '=', filter.type!))
    .$if(cursor !== undefined, (q) =>
      q.where((eb) =>
        eb.or([
          eb('created_at', '<', cursor!.created_at),
          eb.and([eb('created_at', '=', cursor!.created_at), eb('id', '<', cursor!.id)]),
        ]),
      ),
    )
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(EVENTS_PAGE_SIZE + 1)
    .execute();
  const last = rows.length > EVENTS_PAGE_SIZE ? rows[EVENTS_PAGE_SIZE - 1]! : null;
  return { events: rows.slice(0, EVENTS_PAGE_SIZE), next: last ? `${last.created_at}~${last.id}` : null };
}
