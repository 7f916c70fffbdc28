import type { Kysely } from 'kysely';
import { afterCommit } from '../../platform/db/after-commit.js';
import type { Database } from '../../platform/db/schema.js';
import { DEFAULT_TIMEZONE, localDate } from '../../platform/values/local-date.js';

/**
 * Store time zones as last read, for a minute: every sale, order and page view is counted on its
 * store's local day, and reading the zone each time was one more statement in every purchase. A
 * change made in this process is seen at once (`zoneChanged`); one made by another process or node
 * within the minute, so a fact counted in that minute may land on the old zone's day.
 */
const ZONE_TTL_MS = 60_000;
const zones = new Map<string, { zone: string; until: number }>();

/** The time zone of each store named (IANA name, `stores.timezone`). */
export async function storeTimezones(
  db: Kysely<Database>,
  storeIds: readonly string[],
): Promise<Map<string, string>> {
  const now = Date.now();
  const found = new Map<string, string>();
  const missing: string[] = [];
  for (const id of storeIds) {
    const known = zones.get(id);
    if (known && known.until > now) found.set(id, known.zone);
    else missing.push(id);
  }
  if (missing.length === 0) return found;
  const rows = await db.selectFrom('stores').select(['id', 'timezone']).where('id', 'in', missing).execute();
  for (const row of rows) {
    found.set(row.id, row.timezone);
    zones.set(row.id, { zone: row.timezone, until: now + ZONE_TTL_MS });
  }
  return found;
}

/** The zone a store counts its days in: analytics' days, subscription periods and due dates. */
export async function storeTimezone(db: Kysely<Database>, storeId: string): Promise<string> {
  return (await storeTimezones(db, [storeId])).get(storeId) ?? DEFAULT_TIMEZONE;
}

/** Today (YYYY-MM-DD) in the store's time zone. */
export async function storeToday(db: Kysely<Database>, storeId: string, now = new Date()): Promise<string> {
  return localDate(now, await storeTimezone(db, storeId));
}

/** The store's zone was written by `db`: read afresh once that commits. */
export function zoneChanged(db: Kysely<Database>, storeId: string): Promise<void> {
  return afterCommit(db, () => zones.delete(storeId));
}
