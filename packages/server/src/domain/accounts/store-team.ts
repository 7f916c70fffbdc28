import type { Kysely } from 'kysely';
import { emailKey } from './users.js';
import type { Database } from '../../platform/db/schema.js';

/**
 * Whether `address` belongs to one of the people who run the store (a dashboard member of it, invited
 * or active): they may always receive the e-mails of the store's test sales.
 */
export async function isStoreTeamEmail(
  db: Kysely<Database>,
  storeId: string,
  address: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select('users.id')
    .where('memberships.store_id', '=', storeId)
    .where('users.email_key', '=', emailKey(address))
    .executeTakeFirst();
  return row !== undefined;
}
