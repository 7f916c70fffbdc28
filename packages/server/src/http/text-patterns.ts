/*
 * Text that both databases store exactly as sent. PostgreSQL `text` cannot hold U+0000 (the write
 * fails), and a lone UTF-16 surrogate (valid in JSON as an escape, but not Unicode) would be stored as
 * U+FFFD, so what was answered and what is read back would differ. Both are refused up front as a 400
 * naming the field. Ajv compiles patterns with the `u` flag, where a surrogate pair is one code point
 * (emoji pass) and only unpaired halves fall in the \ud800-\udfff range.
 */

/** Any storable text. */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\ud800-\\udfff]*$';

/** Storable text with at least one visible (non-space) character. */
export const VISIBLE_TEXT_PATTERN =
  '^[^\\u0000\\ud800-\\udfff]*[^\\s\\u0000\\ud800-\\udfff][^\\u0000\\ud800-\\udfff]*$';
