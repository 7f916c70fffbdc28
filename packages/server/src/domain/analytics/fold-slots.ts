import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { locksRows } from '../../platform/db/row-locks.js';
import type { Database } from '../../platform/db/schema.js';
import { addDays } from '../../platform/values/local-date.js';
import { COUNTERS, DAY_KEY } from './daily-totals.js';

/** Rows moved per statement: each statement is one short transaction, whatever the backlog. */
const BATCH = 5000;

/**
 * The UTC date two days before `now`: every store's local "yesterday" is on or after it, whatever its
 * zone (offsets reach ±14 h), so the days before it only see the odd refund or chargeback.
 */
export function foldableBefore(now: number): string {
  return addDays(new Date(now).toISOString().slice(0, 10), -2);
}

/**
 * Adds the slots of each day before `before` into its slot 0 and deletes them, so a summary of past
 * days reads one row a day again. Slots only exist where rows lock (PostgreSQL: concurrent purchases
 * of one store add to different slots of today); SQLite writes slot 0 only, and there is nothing to do.
 *
 * Each statement deletes a batch of slot rows and adds their sums to slot 0 in one step, so a summary
 * (one statement, one snapshot) sees every amount exactly once, before or after. A slot row that a
 * purchase or a refund holds right now is skipped (`SKIP LOCKED`) and folded by a later run, so folding
 * never waits on a writer; a writer that meets a row being folded waits for this statement only, and
 * then adds to a new row of its slot. Answers the slot rows folded.
 */
export async function foldDailySlots(db: Kysely<Database>, before: string): Promise<number> {
  if (!locksRows(db)) return 0;
  let folded = 0;
  for (;;) {
    const moved = (await foldBatch(db, before)).rows[0]!.moved;
    folded += moved;
    if (moved < BATCH) return folded;
  }
}

function foldBatch(db: Kysely<Database>, before: string) {
  const key = sql.join(DAY_KEY.map((c) => sql.ref(c)));
  const counters = sql.join(COUNTERS.map((c) => sql.ref(c)));
  // The batch's sums per day go to slot 0 (counters are bigint; `sum` answers numeric, cast back).
  // Both steps run whether or not the final select reads them (PostgreSQL runs every data-modifying
  // WITH once); the select counts the rows moved.
  return sql<{ moved: number }>`with moved as (
      delete from analytics_daily where ctid in (
        select ctid from analytics_daily where slot <> 0 and day < ${before}
        limit ${BATCH} for update skip locked)
      returning ${key}, ${counters}),
    added as (
      insert into analytics_daily (${key}, ${counters}, slot)
      select ${key}, ${sql.join(COUNTERS.map((c) => sql`sum(${sql.ref(c)})::bigint`))}, 0
      from moved group by ${key}
      on conflict (${key}, slot) do update set ${sql.join(
        COUNTERS.map((c) => sql`${sql.ref(c)} = analytics_daily.${sql.ref(c)} + excluded.${sql.ref(c)}`),
      )})
    select count(*)::int as moved from moved`.execute(db);
}
