/**
 * CRC16-CCITT-FALSE (polynomial 0x1021, initial value 0xFFFF, no reflection, no final XOR),
 * the checksum of EMV QR codes and therefore of Pix BR Codes (field 63).
 *
 * The input is a BR Code payload, which is plain ASCII, so each character is one byte.
 * Characters outside 0x00..0x7F are rejected rather than hashed in some encoding.
 */
export function crc16CcittFalse(text: string): number {
  let crc = 0xffff;
  for (let i = 0; i < text.length; i++) {
    const byte = text.charCodeAt(i);
    if (byte > 0x7f) throw new RangeError(`crc16: non-ASCII character at position ${i}`);
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}

/** The CRC as BR Code field 63 carries it: 4 uppercase hex digits, with leading zeros. */
export function crc16Hex(text: string): string {
  return crc16CcittFalse(text).toString(16).toUpperCase().padStart(4, '0');
}
