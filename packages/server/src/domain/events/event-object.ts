import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Timestamp } from '../../platform/http/schemas.js';
import { AnyEventTypeSchema } from '../../platform/outbox/event-types.js';

/** The event as delivered and served; `data.object` is the resource it is about. */
export const Event = Type.Object(
  {
    id: Type.String({ example: 'evt_8mZ0b2kqP1sXw4TnYc7H1aQe' }),
    object: Type.Literal('event'),
    type: AnyEventTypeSchema,
    created_at: Timestamp,
    livemode: Type.Boolean(),
    data: Type.Object({
      object: Type.Unknown({ description: 'The resource, as its own endpoint returns it.' }),
    }),
  },
  { $id: 'Event', title: 'Event' },
);
export type Event = Static<typeof Event>;
