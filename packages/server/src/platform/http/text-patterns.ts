/*
 * Text that both databases store exactly as sent. PostgreSQL `text` cannot hold U+0000 (the write
 * fails), and a lone UTF-16 surrogate (valid in JSON as an escape, but not Unicode) would be stored as
 * U+FFFD, so what was answered and what is read back would differ. Both are refused up front, for
 * every request (see storable-text.ts); the patterns below say it in the description of the fields
 * that also need a visible character. Ajv compiles patterns with the `u` flag, where a surrogate pair
 * is one code point (emoji pass) and only unpaired halves fall in the \ud800-\udfff range.
 */

/** Any storable text. */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\ud800-\\udfff]*$';

/** Storable text with at least one visible (non-space) character. */
export const VISIBLE_TEXT_PATTERN =
  '^[^\\u0000\\ud800-\\udfff]*[^\\s\\u0000\\ud800-\\udfff][^\\u0000\\ud800-\\udfff]*$';

/** One character no text may hold: U+0000 or half of a surrogate pair (the `u` flag pairs the rest). */
// eslint-disable-next-line no-control-regex -- finding NUL is the point
export const UNSTORABLE_CHARACTER = /[\u0000\ud800-\udfff]/u;

/** A C0 control character or DEL: never part of a header value a client means to send. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** What a merchant reads when text breaks the rule. */
export const UNSTORABLE_TEXT_MESSAGE = 'must not contain NUL (U+0000) or unpaired surrogates';
