import QRCode from 'qrcode';

export interface QrImage {
  png: Buffer;
  /** The PNG as plain base64, without a `data:image/png;base64,` prefix. */
  base64: string;
}

/**
 * Renders a BR Code payload as a PNG QR code.
 *
 * Error correction M (15%), what banks print for Pix; a 4-module quiet zone (the QR standard's
 * minimum); 8 pixels per module, so a typical Pix payload (version 7..10, 45..57 modules) comes out
 * about 420..520 px square: sharp on screen and when scaled down by a checkout page. Black on white.
 */
export async function renderQrPng(payload: string): Promise<QrImage> {
  const png = await QRCode.toBuffer(payload, {
    type: 'png',
    errorCorrectionLevel: 'M',
    margin: 4,
    scale: 8,
    color: { dark: '#000000ff', light: '#ffffffff' },
  });
  return { png, base64: png.toString('base64') };
}
