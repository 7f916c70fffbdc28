/** Raised by the BR Code builder (invalid input) and parser (malformed payload). */
export class BrCodeError extends Error {
  override readonly name = 'BrCodeError';
}
