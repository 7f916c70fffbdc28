import type { Insertable, Kysely } from 'kysely';
import { reusedInsert } from '../db/reused-query.js';
import { wakeOnCommit } from '../jobs/wake.js';
import type { Database } from '../db/schema.js';
import { prefixedId } from '../values/ids.js';
import type { AnyEventType } from './event-types.js';

/** The webhook worker's wake (jobs/wake.ts): it dispatches what the outbox holds, and sends the delivery jobs. */
export const OUTBOX_WAKE = 'outbox';

export interface EventsTable {
  id: string;
  store_id: string;
  type: string;
  livemode: number;
  /** The whole event object as JSON, exactly as it is delivered and served. */
  payload: string;
  created_at: string;
  /**
   * When the event was handed to delivery, fanned out into one job per endpoint (migration 0003): in
   * the transaction that records it, or later by the delivery worker's dispatcher. Null until then.
   */
  dispatched_at: string | null;
}

declare module '../db/schema.js' {
  interface Tables {
    events: EventsTable;
  }
}

export interface StorefrontEvent {
  id: string;
  object: 'event';
  type: AnyEventType;
  created_at: string;
  livemode: boolean;
  data: { object: unknown };
}

export interface NewEvent {
  storeId: string;
  type: AnyEventType;
  livemode: boolean;
  object: unknown;
  /**
   * An event this one must follow: listings and deliveries order by (created_at, id), so a second
   * event of one change gets a timestamp at least 1 ms after the first instead of a random tie.
   */
  after?: StorefrontEvent;
}

function createdAtFor(after: StorefrontEvent | undefined): string {
  const now = Date.now();
  return new Date(after ? Math.max(now, Date.parse(after.created_at) + 1) : now).toISOString();
}

const insertEventRow = reusedInsert('insert event', (db: Kysely<Database>, row: Insertable<EventsTable>) =>
  db.insertInto('events').values(row),
);

/** What a dispatch needs of an event: whose it is, its type and mode, and when it happened. */
export type DispatchableEvent = Pick<EventsTable, 'id' | 'store_id' | 'type' | 'livemode' | 'created_at'>;

/**
 * Queues an event's deliveries in the transaction that records it; answers whether it queued any.
 * The webhooks module installs it (`dispatchOnWrite`) where the service runs.
 */
export type EventDispatch = (trx: Kysely<Database>, event: DispatchableEvent) => Promise<boolean>;

/** Each database's dispatch, by its adapter: the one object a Kysely instance and its transactions share. */
const dispatchers = new WeakMap<object, EventDispatch>();

/**
 * From now on, events recorded on `db` in a transaction are dispatched in it: the change, its event
 * and its deliveries commit together, and no later transaction of the worker's marks and fans them
 * out. An event recorded outside a transaction, or on a database nothing installed this for (some CLI
 * commands), is dispatched by the worker as before: the worker's dispatcher stays the guarantee.
 */
export function dispatchEventsOnWrite(db: Kysely<Database>, dispatch: EventDispatch): void {
  dispatchers.set(db.getExecutor().adapter, dispatch);
}

/**
 * Writes an event to the outbox. Call it with the transaction that makes the change, so the change
 * and its event commit together or not at all; delivery picks it up from there, woken as it commits.
 */
export async function recordEvent(trx: Kysely<Database>, input: NewEvent): Promise<StorefrontEvent> {
  const event: StorefrontEvent = {
    id: prefixedId('evt'),
    object: 'event',
    type: input.type,
    created_at: createdAtFor(input.after),
    livemode: input.livemode,
    data: { object: input.object },
  };
  // Outside a transaction the event and its deliveries could not commit as one: the worker dispatches it.
  const dispatch = trx.isTransaction ? (dispatchers.get(trx.getExecutor().adapter) ?? null) : null;
  const row = {
    id: event.id,
    store_id: input.storeId,
    type: event.type,
    livemode: input.livemode ? 1 : 0,
    payload: JSON.stringify(event),
    created_at: event.created_at,
    dispatched_at: dispatch ? event.created_at : null,
  };
  await insertEventRow(trx, row);
  // The worker is woken to dispatch the event, or to send what its dispatch queued; not for nothing.
  if (dispatch === null || (await dispatch(trx, row))) await wakeOnCommit(trx, OUTBOX_WAKE);
  return event;
}
