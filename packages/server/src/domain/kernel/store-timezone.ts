import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { DEFAULT_TIMEZONE, localDate } from '../../platform/values/local-date.js';

/** The time zone of each store named (IANA name, `stores.timezone`). */
export async function storeTimezones(
  db: Kysely<Database>,
  storeIds: readonly string[],
): Promise<Map<string, string>> {
  if (storeIds.length === 0) return new Map();
  const rows = await db.selectFrom('stores').select(['id', 'timezone']).where('id', 'in', storeIds).execute();
  return new Map(rows.map((row) => [row.id, row.timezone]));
}

/** The zone a store counts its days in: analytics' days, subscription periods and due dates. */
export async function storeTimezone(db: Kysely<Database>, storeId: string): Promise<string> {
  return (await storeTimezones(db, [storeId])).get(storeId) ?? DEFAULT_TIMEZONE;
}

/** Today (YYYY-MM-DD) in the store's time zone. */
export async function storeToday(db: Kysely<Database>, storeId: string, now = new Date()): Promise<string> {
  return localDate(now, await storeTimezone(db, storeId));
}
