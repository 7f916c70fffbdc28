/**
 * A card token as the PSPs' scripts make them. A bare run of 12 to 19 digits is refused: that is a
 * card number, which must never reach this service (the buyer's browser gives it to the PSP only).
 */
export const CARD_TOKEN_PATTERN = '^(?![0-9]{12,19}$)[A-Za-z0-9_.:-]{1,200}$';
