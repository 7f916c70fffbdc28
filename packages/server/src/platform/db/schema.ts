/**
 * The database as Kysely sees it. Each resource folder adds its own tables by augmenting `Tables`
 * (declaration merging), so a resource owns its table types next to its queries.
 *
 * Conventions, identical on SQLite and PostgreSQL: ids are text (uuid or prefixed), timestamps are
 * ISO 8601 UTC text with milliseconds (they sort as text), booleans are integers 0/1, money is integer
 * cents, JSON is text. Every store-owned table carries `store_id`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface Tables {}

export type Database = Tables;

/** 0/1 as stored; use `toBool`/`fromBool` at the edges. */
export type DbBool = number;

export const toBool = (value: DbBool): boolean => value === 1;
export const fromBool = (value: boolean): DbBool => (value ? 1 : 0);
