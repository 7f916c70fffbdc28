import type { Insertable, Kysely } from 'kysely';
import { reusedInsert } from '../db/reused-query.js';
import { wakeOnCommit } from '../jobs/wake.js';
import type { Database } from '../db/schema.js';
import { prefixedId } from '../values/ids.js';
import type { AnyEventType } from './event-types.js';

/** The webhook worker's wake (jobs/wake.ts): it drains the outbox, and sends the delivery jobs. */
export const OUTBOX_WAKE = 'outbox';

export interface EventsTable {
  id: string;
  store_id: string;
  type: string;
  livemode: number;
  /** The whole event object as JSON, exactly as it is delivered and served. */
  payload: string;
  created_at: string;
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
  await insertEventRow(trx, {
    id: event.id,
    store_id: input.storeId,
    type: event.type,
    livemode: input.livemode ? 1 : 0,
    payload: JSON.stringify(event),
    created_at: event.created_at,
  });
  await wakeOnCommit(trx, OUTBOX_WAKE);
  return event;
}
