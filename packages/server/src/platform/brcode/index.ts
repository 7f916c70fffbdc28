export { buildBrCode } from './build.js';
export { parseBrCode } from './parse.js';
export { parseCompositeBrCode, type CompositeBrCode } from './composite.js';
export { renderQrPng, type QrImage } from './qr-image.js';
export { foldToAscii, foldAndTruncate } from './ascii-fold.js';
export { crc16CcittFalse, crc16Hex } from './crc16.js';
export { BrCodeError } from './errors.js';
export type { BrCode, BrCodeInput, PixAccount, PixReceiver } from './types.js';
