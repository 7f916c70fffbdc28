import { encodeMonochromePng } from './mono-png.js';
import { qrSymbol } from './qr-symbol.js';

export interface QrImage {
  png: Buffer;
  /** The PNG as plain base64, without a `data:image/png;base64,` prefix. */
  base64: string;
}

/** Pixels per QR module and quiet-zone width in modules. */
export const QR_SCALE = 8;
export const QR_MARGIN = 4;

/**
 * Renders a BR Code payload as a black-on-white PNG QR code.
 *
 * `qrcode` computes the symbol with error correction M (15%), what banks print for Pix (the
 * segments split and the mask chosen faster, `qrSymbol`); the PNG is written as 1-bit grayscale by `encodeMonochromePng`
 * (qrcode's own PNG path encodes RGBA: measured ~22 ms and 5.6 KB per Pix QR at this size, against
 * well under 1 ms and under 1 KB). 8 px per module and the standard 4-module quiet zone: a typical
 * Pix payload (version 7..10, 45..57 modules) comes out 424..520 px square, sharp on screen and in
 * print. Synchronous CPU work; async only to leave room for a worker later.
 */
export async function renderQrPng(payload: string): Promise<QrImage> {
  const { size, data } = qrSymbol(payload);
  const png = encodeMonochromePng(
    { size, isDark: (row, col) => data[row * size + col] === 1 },
    QR_SCALE,
    QR_MARGIN,
  );
  return { png, base64: png.toString('base64') };
}
