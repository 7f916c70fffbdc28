import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import type { WriteContext } from '../../../domain/kernel/write-context.js';
import { findStore } from '../../../domain/stores/stores.js';
import { member } from './page.js';

/**
 * Who writes a dashboard change: the signed-in member's store, and the mode its events carry, the
 * store's checkout mode (what the API would take from the key's mode).
 */
export async function storeWriteContext(
  db: Kysely<Database>,
  request: FastifyRequest,
): Promise<WriteContext> {
  const { storeId } = member(request);
  const store = await findStore(db, storeId);
  return { storeId, livemode: store?.checkout_mode === 'live' };
}
