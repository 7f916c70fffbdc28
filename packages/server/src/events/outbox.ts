import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { prefixedId } from '../shared/ids.js';
import { nowIso } from '../shared/time.js';
import type { AnyEventType } from './event-types.js';

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
}

/**
 * Writes an event to the outbox. Call it with the transaction that makes the change, so the change
 * and its event commit together or not at all; delivery picks it up from there.
 */
export async function recordEvent(trx: Kysely<Database>, input: NewEvent): Promise<StorefrontEvent> {
  const event: StorefrontEvent = {
    id: prefixedId('evt'),
    object: 'event',
    type: input.type,
    created_at: nowIso(),
    livemode: input.livemode,
    data: { object: input.object },
  };
  await trx
    .insertInto('events')
    .values({
      id: event.id,
      store_id: input.storeId,
      type: event.type,
      livemode: input.livemode ? 1 : 0,
      payload: JSON.stringify(event),
      created_at: event.created_at,
    })
    .execute();
  return event;
}
