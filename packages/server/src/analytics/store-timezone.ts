import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** A store's days are counted in its own time zone; this is the zone of a store without one. */
export const DEFAULT_TIMEZONE = 'America/Sao_Paulo';

/** The time zone of each store named (IANA name, `stores.timezone`): the one place analytics reads it. */
export async function storeTimezones(
  db: Kysely<Database>,
  storeIds: readonly string[],
): Promise<Map<string, string>> {
  if (storeIds.length === 0) return new Map();
  const rows = await db.selectFrom('stores').select(['id', 'timezone']).where('id', 'in', storeIds).execute();
  return new Map(rows.map((row) => [row.id, row.timezone]));
}

export async function storeTimezone(db: Kysely<Database>, storeId: string): Promise<string> {
  return (await storeTimezones(db, [storeId])).get(storeId) ?? DEFAULT_TIMEZONE;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** `en-CA` writes dates as YYYY-MM-DD; one formatter per zone, made once. */
function formatIn(timeZone: string): Intl.DateTimeFormat {
  let format = formats.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-CA', {
        timeZone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      });
    } catch {
      // A zone this Node does not know counts in the default rather than losing the fact.
      format = formatIn(DEFAULT_TIMEZONE);
    }
    formats.set(timeZone, format);
  }
  return format;
}

/** The local date (YYYY-MM-DD) of an instant in a time zone. */
export function localDate(instant: string | number | Date, timeZone: string): string {
  return formatIn(timeZone).format(new Date(instant));
}
