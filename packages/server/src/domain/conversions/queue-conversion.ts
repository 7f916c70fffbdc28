import { sql } from 'kysely';
import { reusedQuery } from '../../platform/db/reused-query.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { prefixedId } from '../../platform/values/ids.js';
import { nowIso } from '../../platform/values/time.js';
import { wakeOnCommit } from '../../platform/jobs/wake.js';
import { CONVERSION_WAKE } from './conversion-event.js';
import type { ConversionKind } from './conversion-event.js';

const insertIfMetaSet = reusedQuery(
  'queue conversion',
  (db: Kysely<Database>, id: string, kind: ConversionKind, eventId: string, now: string, storeId: string) =>
    db
      .insertInto('conversion_events')
      .columns(['id', 'store_id', 'kind', 'event_id', 'status', 'next_attempt_at', 'created_at'])
      .expression(
        db
          .selectFrom('stores')
          .select([
            sql.val(id).as('id'),
            'id as store_id',
            sql.val(kind).as('kind'),
            sql.val(eventId).as('event_id'),
            sql.val('pending').as('status'),
            sql.val(now).as('next_attempt_at'),
            sql.val(now).as('created_at'),
          ])
          .where('id', '=', storeId)
          .where('meta_pixel_id', 'is not', null)
          .where('meta_access_token_sealed', 'is not', null),
      )
      .onConflict((oc) => oc.columns(['store_id', 'event_id', 'kind']).doNothing()),
);

/**
 * Queues a conversion event in its cause's transaction (the order's, the sale's), so the event exists
 * exactly when its cause does. One statement that inserts nothing for a store without Meta set (no
 * pixel or no access token), and nothing a second time for the same cause.
 */
export async function queueConversion(
  trx: Kysely<Database>,
  input: { storeId: string; kind: ConversionKind; eventId: string },
): Promise<void> {
  const queued = await insertIfMetaSet(
    trx,
    prefixedId('cev'),
    input.kind,
    input.eventId,
    nowIso(),
    input.storeId,
  );
  if (queued.numAffectedRows) await wakeOnCommit(trx, CONVERSION_WAKE);
}
