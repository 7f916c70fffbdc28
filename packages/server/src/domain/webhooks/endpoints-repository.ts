import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { EventType } from '../../platform/outbox/event-types.js';
import { nowIso } from '../../platform/values/time.js';
import type { EndpointStatus, WebhookEndpointsTable } from './endpoint-object.js';
import { locksRows } from '../../platform/db/row-locks.js';

/** Endpoints are seen through the store and the mode of the calling key. */
export interface EndpointScope {
  storeId: string;
  livemode: boolean;
}

export const MAX_ENDPOINTS_PER_STORE = 10;

function scoped(db: Kysely<Database>, scope: EndpointScope) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('store_id', '=', scope.storeId)
    .where('livemode', '=', scope.livemode ? 1 : 0);
}

/** A live endpoint; deleted ones are found only with `includeDeleted` (their history stays readable). */
export function findEndpoint(
  db: Kysely<Database>,
  scope: EndpointScope,
  id: string,
  options: { includeDeleted?: boolean } = {},
) {
  return scoped(db, scope)
    .where('id', '=', id)
    .$if(!options.includeDeleted, (q) => q.where('deleted_at', 'is', null))
    .executeTakeFirst();
}

/** A store's live endpoint in either mode (the dashboard sees both modes; the API one key's mode). */
export function findStoreEndpoint(db: Kysely<Database>, storeId: string, id: string) {
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export function listEndpointsQuery(db: Kysely<Database>, scope: EndpointScope) {
  return scoped(db, scope).where('deleted_at', 'is', null);
}

/**
 * Endpoints the store has, in every mode: the limit is per store. On PostgreSQL the store row
 * is locked first so two concurrent creations cannot both see 9 and make 11.
 */
export async function countStoreEndpoints(trx: Kysely<Database>, storeId: string): Promise<number> {
  if (locksRows(trx)) {
    await trx.selectFrom('stores').select('id').where('id', '=', storeId).forUpdate().execute();
  }
  const { count } = await trx
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('store_id', '=', storeId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(count);
}

export async function insertEndpoint(db: Kysely<Database>, row: WebhookEndpointsTable): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export interface EndpointChanges {
  url?: string;
  description?: string | null;
  events?: EventType[];
  status?: EndpointStatus;
}

export async function updateEndpoint(
  db: Kysely<Database>,
  row: WebhookEndpointsTable,
  changes: EndpointChanges,
): Promise<WebhookEndpointsTable> {
  const updated: WebhookEndpointsTable = {
    ...row,
    ...(changes.url === undefined ? {} : { url: changes.url }),
    ...(changes.description === undefined ? {} : { description: changes.description }),
    ...(changes.events === undefined ? {} : { events: JSON.stringify(changes.events) }),
    ...(changes.status === undefined ? {} : { status: changes.status }),
    // Re-activating starts a fresh failure run, or the next failure would disable it again at once.
    ...(changes.status === 'active' ? { failing_since: null } : {}),
    updated_at: nowIso(),
  };
  const { url, description, events, status, failing_since, updated_at } = updated;
  await db
    .updateTable('webhook_endpoints')
    .set({ url, description, events, status, failing_since, updated_at })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .execute();
  return updated;
}

/** Soft delete: the row stays as a tombstone for the history, its secret is wiped, its queue dropped. */
export async function deleteEndpoint(db: Kysely<Database>, row: WebhookEndpointsTable): Promise<void> {
  const now = nowIso();
  await db
    .updateTable('webhook_endpoints')
    .set({
      deleted_at: now,
      updated_at: now,
      secret_sealed: '',
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
    })
    .where('store_id', '=', row.store_id)
    .where('id', '=', row.id)
    .execute();
  await db.deleteFrom('webhook_jobs').where('endpoint_id', '=', row.id).execute();
}
