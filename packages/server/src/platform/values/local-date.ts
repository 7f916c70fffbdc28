/*
 * Calendar days (`YYYY-MM-DD`) as a store counts them: the one place that turns an instant into a
 * local date and does day arithmetic. A store's days are counted in its own IANA time zone
 * (`stores.timezone`, see `storeTimezone`), never in UTC or in the server's zone: a sale at 23:30 in
 * Manaus is that day's in Manaus even though it is already tomorrow in São Paulo and in UTC.
 */

/** The zone of a store without one of its own. */
export const DEFAULT_TIMEZONE = 'America/Sao_Paulo';

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

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

/**
 * The last date written in each zone and the UTC second it holds for. A zone's offset from UTC is a
 * whole number of seconds, so its midnight falls on a whole second and every instant of one second
 * has the same local date. Under load many facts of one second are counted (an order, a sale, a
 * page view), and formatting was a few µs each.
 */
const lastDates = new Map<string, { second: number; date: string }>();

/** The local date (YYYY-MM-DD) of an instant in a time zone. */
export function localDate(instant: string | number | Date, timeZone: string): string {
  const ms = new Date(instant).getTime();
  const second = Math.floor(ms / 1000);
  const last = lastDates.get(timeZone);
  if (last !== undefined && last.second === second) return last.date;
  const date = formatIn(timeZone).format(ms);
  lastDates.set(timeZone, { second, date });
  return date;
}

/** Whether `text` is a real calendar day written `YYYY-MM-DD`. */
export function isCalendarDate(text: string): boolean {
  const match = DATE_PATTERN.exec(text);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === text;
}

/** A calendar day as midnight UTC: only for arithmetic on days, never to tell an instant's day. */
export function dayStartUtc(date: string): Date {
  return new Date(`${date}T00:00:00.000Z`);
}

export function addDays(date: string, days: number): string {
  return new Date(dayStartUtc(date).getTime() + days * DAY_MS).toISOString().slice(0, 10);
}

/** Days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((dayStartUtc(to).getTime() - dayStartUtc(from).getTime()) / DAY_MS);
}

/** The offset of a zone from UTC at an instant, in ms (São Paulo: -3 h). */
function offsetMs(instant: number, timeZone: string): number {
  const parts = Object.fromEntries(
    offsetFormatIn(timeZone)
      .formatToParts(new Date(instant))
      .map((part) => [part.type, part.value]),
  );
  const wall = Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour) % 24,
    Number(parts.minute),
    Number(parts.second),
  );
  return wall - Math.floor(instant / 1000) * 1000;
}

const offsetFormats = new Map<string, Intl.DateTimeFormat>();

function offsetFormatIn(timeZone: string): Intl.DateTimeFormat {
  let format = offsetFormats.get(timeZone);
  if (!format) {
    const fields = {
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    } as const;
    try {
      format = new Intl.DateTimeFormat('en-US', { ...fields, second: 'numeric', hourCycle: 'h23', timeZone });
    } catch {
      format = offsetFormatIn(DEFAULT_TIMEZONE);
    }
    offsetFormats.set(timeZone, format);
  }
  return format;
}

/**
 * The instant (ISO) a local day begins in a zone: its first moment, which is midnight except where a
 * daylight-saving change skips midnight (then the first moment after the gap).
 */
export function localDayStart(date: string, timeZone: string): string {
  const midnightAsUtc = dayStartUtc(date).getTime();
  // The offset at the guess can differ from the offset at the answer across a change: look twice.
  let instant = midnightAsUtc - offsetMs(midnightAsUtc, timeZone);
  instant = midnightAsUtc - offsetMs(instant, timeZone);
  if (localDate(instant, timeZone) !== date) instant += 3_600_000; // midnight fell in a skipped hour
  return new Date(instant).toISOString();
}
