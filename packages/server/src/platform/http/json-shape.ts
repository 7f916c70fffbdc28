/** How deep a request body's arrays and objects may nest. */
export const MAX_JSON_DEPTH = 32;
/** How many values (arrays, objects, strings, numbers, true, false, null) and keys one body may hold. */
export const MAX_JSON_VALUES = 20_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
const COLON = 0x3a;

/** The first character of a number, `true`, `false` or `null`. */
const startsScalar = (c: number) =>
  (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x74 || c === 0x66 || c === 0x6e;

/**
 * Why JSON text is refused before it is parsed, or null: arrays and objects nested deeper than
 * MAX_JSON_DEPTH, or more than MAX_JSON_VALUES values and keys. Read in one pass over the characters
 * (brackets inside strings do not count). A megabyte of `[[[[`, of `[{},{},…]` or of one object's
 * keys would otherwise cost the parser, and every walk over the value after it, hundreds of
 * milliseconds to seconds of the event loop; no request of the API, a purchase page or a PSP comes
 * near either limit. Text that is not JSON is left for the parser to refuse.
 */
export function jsonShapeRefusal(text: string): string | null {
  let depth = 0;
  let values = 0;
  let inString = false;
  let expectingValue = true; // at the start, and after `[`, `,` and `:`
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
      continue;
    }
    let counts = false;
    if (c === QUOTE) {
      inString = true;
      counts = true; // a string value or a key
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > MAX_JSON_DEPTH) {
        return `The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`;
      }
      counts = true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    } else if (expectingValue && startsScalar(c)) {
      counts = true;
    }
    if (counts && ++values > MAX_JSON_VALUES) {
      return `The request body holds more than ${MAX_JSON_VALUES} values and keys.`;
    }
    if (c === OPEN_BRACKET || c === COMMA || c === COLON) expectingValue = true;
    else if (c > 0x20) expectingValue = false; // anything else but whitespace
  }
  return null;
}
