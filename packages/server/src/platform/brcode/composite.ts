import { BrCodeError } from './errors.js';
import { GUI_PIX, MAX_KEY_OR_URL } from './limits.js';
import { parseBrCode } from './parse.js';
import { decodeFields } from './tlv.js';
import type { BrCode } from './types.js';

/** The template of a composite code that points the payer's app at a Pix Automático recurrence. */
const RECURRENCE_FIELD = '80';

/** A composite BR Code: a payable code (a dynamic charge) that also carries a recurrence to authorise. */
export type CompositeBrCode = BrCode & {
  /** Field 80-25: the recurrence's location, without scheme (`pix.example.com/qr/v2/rec/…`). */
  recurrenceUrl: string;
};

/**
 * Parses a composite BR Code (Pix Automático, journeys 3 and 4): every rule of `parseBrCode` (CRC
 * included), plus field 80 holding GUI `br.gov.bcb.pix` and the recurrence's location (25).
 * Throws `BrCodeError` naming what is wrong.
 */
export function parseCompositeBrCode(payload: string): CompositeBrCode {
  const code = parseBrCode(payload);
  // parseBrCode proved the TLV well formed with no field repeated.
  const template = decodeFields(payload).find((field) => field.id === RECURRENCE_FIELD)?.value;
  if (template === undefined) {
    throw new BrCodeError(`field ${RECURRENCE_FIELD} (Pix Automático recurrence) is missing`);
  }
  const where = `field ${RECURRENCE_FIELD}`;
  const sub = new Map(decodeFields(template, where).map((field) => [field.id, field.value]));
  if (sub.get('00')?.toLowerCase() !== GUI_PIX) {
    throw new BrCodeError(`${where}-00 (GUI) must be ${GUI_PIX}`);
  }
  const recurrenceUrl = sub.get('25');
  if (recurrenceUrl === undefined || recurrenceUrl.length === 0 || recurrenceUrl.length > MAX_KEY_OR_URL) {
    throw new BrCodeError(`${where}-25 (recurrence location) must be 1 to ${MAX_KEY_OR_URL} characters`);
  }
  return { ...code, recurrenceUrl };
}
