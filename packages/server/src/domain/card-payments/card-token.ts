/**
 * A card token as the PSPs' scripts make them: letters, digits, `_ . : -`. A bare run of 12 to 19
 * digits is refused: that is a card number, which must never reach this service (the buyer's
 * browser gives it to the PSP only). Written without lookahead, so every JSON Schema tool (and the
 * fuzzer's generator) reads it; the length (1 to 200) is the schema's `minLength`/`maxLength`.
 */
export const CARD_TOKEN_PATTERN = '^([0-9]{1,11}|[0-9]{20,}|[0-9]*[A-Za-z_.:-][A-Za-z0-9_.:-]*)$';
export const CARD_TOKEN_MAX_LENGTH = 200;
