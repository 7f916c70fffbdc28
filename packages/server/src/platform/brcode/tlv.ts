import { BrCodeError } from './errors.js';

/** One EMV TLV field: a 2-digit id, a 2-digit decimal length, then the value. */
export interface TlvField {
  id: string;
  value: string;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** Encodes one field. The value must already be printable ASCII and at most 99 characters. */
export function encodeField(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) throw new BrCodeError(`field id must be 2 digits, got "${id}"`);
  if (!PRINTABLE_ASCII.test(value)) throw new BrCodeError(`field ${id} contains non-printable-ASCII text`);
  if (value.length > 99) throw new BrCodeError(`field ${id} is ${value.length} characters long (max 99)`);
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/**
 * Splits a TLV string into its fields, in order. Throws when an id or length is not two digits or a
 * length runs past the end. `where` names the enclosing field in error messages.
 */
export function decodeFields(text: string, where = 'payload'): TlvField[] {
  const fields: TlvField[] = [];
  let pos = 0;
  while (pos < text.length) {
    const header = text.slice(pos, pos + 4);
    if (!/^\d{4}$/.test(header)) {
      throw new BrCodeError(`${where}: expected a 2-digit id and 2-digit length at position ${pos}`);
    }
    const id = header.slice(0, 2);
    const length = Number(header.slice(2));
    const value = text.slice(pos + 4, pos + 4 + length);
    if (value.length !== length) {
      throw new BrCodeError(
        `${where}: field ${id} declares ${length} characters but only ${value.length} remain`,
      );
    }
    fields.push({ id, value });
    pos += 4 + length;
  }
  return fields;
}
