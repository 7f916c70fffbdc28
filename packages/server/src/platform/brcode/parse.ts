import { parseAmount } from './amount.js';
import { crc16Hex } from './crc16.js';
import { BrCodeError } from './errors.js';
import { GUI_PIX, MAX_KEY_OR_URL, MAX_MERCHANT_CITY, MAX_MERCHANT_NAME, TXID_PATTERN } from './limits.js';
import { decodeFields, type TlvField } from './tlv.js';
import type { BrCode, PixAccount } from './types.js';

/**
 * Parses and validates a Pix BR Code payload: printable ASCII, well-formed TLV, field 00 first and
 * equal to "01", field 63 last with a matching CRC16 (hex case ignored), no repeated fields, a Pix
 * merchant account (GUI `br.gov.bcb.pix` in one of fields 26..51) with exactly one of key (01) or
 * URL (25), currency 986, country BR, name 1..25, city 1..15, and field 62 with a valid txid (05).
 * Fields it does not know (other templates, 80..99, other 62 subfields) are checked for structure
 * only and ignored. Throws `BrCodeError` with a message naming the offending field.
 */
export function parseBrCode(payload: string): BrCode {
  if (!/^[\x20-\x7e]+$/.test(payload)) throw new BrCodeError('payload must be non-empty printable ASCII');
  const crcMatch = /6304([0-9A-Fa-f]{4})$/.exec(payload);
  if (!crcMatch) throw new BrCodeError('payload must end with field 63 (CRC16, 4 hex digits)');
  const expectedCrc = crc16Hex(payload.slice(0, -4));
  if (crcMatch[1]!.toUpperCase() !== expectedCrc) {
    throw new BrCodeError(`CRC mismatch: payload says ${crcMatch[1]}, computed ${expectedCrc}`);
  }

  const list = decodeFields(payload);
  if (list[0]?.id !== '00' || list[0].value !== '01') {
    throw new BrCodeError('field 00 (payload format) must come first and be "01"');
  }
  if (list.at(-1)?.id !== '63') throw new BrCodeError('field 63 (CRC) must be the last field');
  const fields = indexById(list, 'payload');

  const initiation = fields.get('01');
  if (initiation !== undefined && initiation !== '11' && initiation !== '12') {
    throw new BrCodeError('field 01 (point of initiation) must be "11" or "12"');
  }
  const mcc = required(fields, '52', 'merchant category code');
  if (!/^\d{4}$/.test(mcc)) throw new BrCodeError('field 52 (merchant category code) must be 4 digits');
  if (required(fields, '53', 'currency') !== '986')
    throw new BrCodeError('field 53 (currency) must be "986"');
  if (required(fields, '58', 'country') !== 'BR') throw new BrCodeError('field 58 (country) must be "BR"');
  const merchantName = boundedText(fields, '59', 'merchant name', MAX_MERCHANT_NAME);
  const merchantCity = boundedText(fields, '60', 'merchant city', MAX_MERCHANT_CITY);
  const amountText = fields.get('54');

  const additional = indexById(
    decodeFields(required(fields, '62', 'additional data'), 'field 62'),
    'field 62',
  );
  const txid = required(additional, '05', 'txid', 'field 62-');
  if (!TXID_PATTERN.test(txid))
    throw new BrCodeError('field 62-05 (txid) must be 1 to 25 letters and digits or "***"');

  const { account, additionalInfo } = merchantAccount(fields);
  return {
    ...account,
    merchantName,
    merchantCity,
    ...(amountText !== undefined && { amount: parseAmount(amountText) }),
    txid,
    ...(additionalInfo !== undefined && { additionalInfo }),
    merchantCategoryCode: mcc,
    singleUse: initiation === '12',
  };
}

function indexById(list: TlvField[], where: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const { id, value } of list) {
    if (map.has(id)) throw new BrCodeError(`${where}: field ${id} appears twice`);
    map.set(id, value);
  }
  return map;
}

function required(fields: Map<string, string>, id: string, label: string, prefix = 'field '): string {
  const value = fields.get(id);
  if (value === undefined) throw new BrCodeError(`${prefix}${id} (${label}) is missing`);
  return value;
}

function boundedText(fields: Map<string, string>, id: string, label: string, max: number): string {
  const value = required(fields, id, label);
  if (value.length < 1 || value.length > max) {
    throw new BrCodeError(`field ${id} (${label}) must be 1 to ${max} characters`);
  }
  return value;
}

function merchantAccount(fields: Map<string, string>): { account: PixAccount; additionalInfo?: string } {
  for (let n = 26; n <= 51; n++) {
    const id = String(n);
    const value = fields.get(id);
    if (value === undefined) continue;
    const where = `field ${id}`;
    const sub = indexById(decodeFields(value, where), where);
    if (sub.get('00')?.toLowerCase() !== GUI_PIX) continue;
    const key = sub.get('01');
    const url = sub.get('25');
    if ((key === undefined) === (url === undefined)) {
      throw new BrCodeError(`${where} (Pix account) must hold exactly one of 01 (key) and 25 (URL)`);
    }
    const identifier = (key ?? url)!;
    if (identifier.length > MAX_KEY_OR_URL) {
      throw new BrCodeError(`${where}: key or URL is longer than ${MAX_KEY_OR_URL} characters`);
    }
    const account: PixAccount = key !== undefined ? { pixKey: key } : { url: identifier };
    const info = sub.get('02');
    return info !== undefined ? { account, additionalInfo: info } : { account };
  }
  throw new BrCodeError(`no Pix merchant account (a field 26..51 with GUI ${GUI_PIX})`);
}
