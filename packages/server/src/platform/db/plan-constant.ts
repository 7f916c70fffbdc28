import { sql } from 'kysely';
import type { RawBuilder } from 'kysely';

/**
 * A constant of the code written into a statement's text instead of bound as a parameter, for a
 * column that a partial index's WHERE names (orders' and subscriptions' `status = 'pending'`,
 * checkouts' `is_default = 1`). SQLite plans a statement whose parameter meets such a WHERE for the
 * value bound there, so it prepares the statement anew every time a value is bound, that is on every
 * run: the default checkout's read took ~94 µs in a purchase that way against ~12 with the 1 written
 * in. PostgreSQL plans either alike. Never for input: only values the code itself holds.
 */
export function planConstant<T extends string | number>(value: T): RawBuilder<T> {
  return sql.lit(value);
}

/** `planConstant` of each value, for `in`. */
export function planConstants<T extends string | number>(values: readonly T[]): Array<RawBuilder<T>> {
  return values.map(planConstant);
}
