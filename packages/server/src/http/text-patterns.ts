/*
 * PostgreSQL `text` cannot hold U+0000 (the insert fails), so strings that reach the database refuse
 * it up front as a 400 naming the field, and both databases behave alike.
 */

/** Any text without U+0000. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$';

/** At least one visible (non-space) character, and no U+0000. */
export const VISIBLE_TEXT_PATTERN = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';
