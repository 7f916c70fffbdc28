import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { nowIso } from '../../../platform/values/time.js';
import { subscribedEvents } from '../endpoint-object.js';
import { claimableRows } from '../../../platform/db/row-locks.js';
import { jobRow } from '../delivery-jobs.js';

declare module '../../../platform/outbox/outbox.js' {
  interface EventsTable {
    /** Set when the event was fanned out into delivery jobs (migration 0003). */
    dispatched_at: string | null;
  }
}

/**
 * Fans a batch of not-yet-dispatched events out into one job per endpoint that is active and
 * subscribed to the event's type at this moment. The marker, the claim and the jobs commit together,
 * so a crash leaves the batch undispatched and it is simply picked up again.
 *
 * The claim is an UPDATE first: on SQLite it takes the write lock before anything is read; on
 * PostgreSQL, SKIP LOCKED lets several workers take disjoint batches.
 *
 * Endpoints paused at this moment get nothing and are not caught up later (as Stripe does); an
 * endpoint created after the event does not receive it.
 */
export async function dispatchEvents(db: Kysely<Database>, batchSize: number): Promise<number> {
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
    if (events.length === 0) return 0;

    const storeIds = [...new Set(events.map((e) => e.store_id))];
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select(['id', 'store_id', 'livemode', 'events', 'created_at'])
      .where('store_id', 'in', storeIds)
      .where('status', '=', 'active')
      .where('deleted_at', 'is', null)
      .execute();
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
    return events.length;
  });
}
