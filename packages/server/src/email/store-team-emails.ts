import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/**
 * The e-mail addresses of the people who run a store (its dashboard users), who may always receive
 * the e-mails of the store's test sales. The team table arrives with the dashboard; until then a
 * store has no team here, and only STOREFRONT_TEST_MAIL_ALLOW opens the way.
 */
export function storeTeamEmails(_db: Kysely<Database>, _storeId: string): Promise<string[]> {
  return Promise.resolve([]);
}
