import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { nowIso } from '../../../platform/values/time.js';
import { subscribedEvents } from '../endpoint-object.js';
import { claimableRows } from '../../../platform/db/row-locks.js';
import { jobRow } from '../delivery-jobs.js';
import { readOncePer } from '../../../platform/db/after-commit.js';
import { reusedListQuery, reusedQuery } from '../../../platform/db/reused-query.js';
import type { DispatchableEvent, EventDispatch } from '../../../platform/outbox/outbox.js';

/**
 * Fans a batch of not-yet-dispatched events out into one job per endpoint that is active and
 * subscribed to the event's type at this moment. The marker, the claim and the jobs commit together,
 * so a crash leaves the batch undispatched and it is simply picked up again. Events recorded in a
 * transaction are dispatched there (`dispatchOnWrite`); this catches the others.
 *
 * The claim is an UPDATE first: on SQLite it takes the write lock before anything is read; on
 * PostgreSQL, SKIP LOCKED lets several workers take disjoint batches.
 *
 * Endpoints paused at this moment get nothing and are not caught up later (as Stripe does); an
 * endpoint created after the event does not receive it.
 */
export async function dispatchEvents(db: Kysely<Database>, batchSize: number): Promise<number> {
  // Nearly every event is dispatched as it is written: a look first, and no write lock for nothing.
  if (!(await anyUndispatched(db)).rows.length) return 0;
  return db.transaction().execute(async (trx) => {
    const now = nowIso();
    const pending = trx
      .selectFrom('events')
      .select('id')
      .where('dispatched_at', 'is', null)
      .orderBy('created_at')
      .limit(batchSize)
      .$call(claimableRows(trx));
    const events = await trx
      .updateTable('events')
      .set({ dispatched_at: now })
      .where('id', 'in', pending)
      .where('dispatched_at', 'is', null)
      .returning(['id', 'store_id', 'type', 'livemode', 'created_at'])
      .execute();
    if (events.length > 0) await queueDeliveries(trx, events, now);
    return events.length;
  });
}

const anyUndispatched = reusedQuery('any undispatched event', (db: Kysely<Database>) =>
  db.selectFrom('events').select('id').where('dispatched_at', 'is', null).limit(1),
);

/**
 * The outbox's dispatch in the transaction that records an event (`dispatchEventsOnWrite`): its
 * deliveries, by the same rule as the worker's. True when it queued any.
 */
export const dispatchOnWrite: EventDispatch = async (trx, event) =>
  (await queueDeliveries(trx, [event], nowIso())) > 0;

/**
 * One job per (event, endpoint of its store and mode that is active now, subscribed to its type and
 * created no later than the event). Answers how many it queued.
 */
async function queueDeliveries(
  trx: Kysely<Database>,
  events: readonly DispatchableEvent[],
  now: string,
): Promise<number> {
  const storeIds = [...new Set(events.map((e) => e.store_id))];
  // A change records a few events, in one store: their endpoints are read once for all of them.
  const endpoints = await readOncePer(
    trx,
    `active endpoints of ${storeIds.join(',')}`,
    async () => (await activeEndpoints(trx, storeIds)).rows,
  );
  if (endpoints.length === 0) return 0;
  const subscribers = endpoints.map((endpoint) => ({
    ...endpoint,
    types: new Set<string>(subscribedEvents(endpoint)),
  }));
  const jobs = events.flatMap((event) =>
    subscribers
      .filter(
        (endpoint) =>
          endpoint.store_id === event.store_id &&
          endpoint.livemode === event.livemode &&
          endpoint.created_at <= event.created_at &&
          endpoint.types.has(event.type),
      )
      .map((endpoint) =>
        jobRow({ storeId: event.store_id, endpointId: endpoint.id, eventId: event.id }, now),
      ),
  );
  // Chunked: both databases cap the number of bound parameters in one statement.
  for (let i = 0; i < jobs.length; i += 500) {
    await trx
      .insertInto('webhook_jobs')
      .values(jobs.slice(i, i + 500))
      .execute();
  }
  return jobs.length;
}

const activeEndpoints = reusedListQuery(
  'active endpoints',
  (db: Kysely<Database>, storeIds: readonly string[]) =>
    db
      .selectFrom('webhook_endpoints')
      .select(['id', 'store_id', 'livemode', 'events', 'created_at'])
      .where('store_id', 'in', storeIds)
      .where('status', '=', 'active')
      .where('deleted_at', 'is', null),
);
