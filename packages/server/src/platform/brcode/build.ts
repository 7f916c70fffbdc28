import { formatAmount } from './amount.js';
import { foldAndTruncate } from './ascii-fold.js';
import { crc16Hex } from './crc16.js';
import { BrCodeError } from './errors.js';
import {
  GUI_PIX,
  MAX_ACCOUNT_TEMPLATE,
  MAX_KEY_OR_URL,
  MAX_MERCHANT_CITY,
  MAX_MERCHANT_NAME,
  TXID_PATTERN,
} from './limits.js';
import { encodeField } from './tlv.js';
import type { BrCodeInput } from './types.js';

/**
 * Builds a Pix BR Code ("copia e cola") payload.
 *
 * Text shown to people is folded to ASCII first and then fitted, never rejected for length:
 * merchant name is truncated to 25 characters, city to 15, and the additional info to the room left
 * in field 26 (dropped if none is left). Identifiers are never altered: a Pix key or URL that is
 * empty, has spaces or non-ASCII characters, is longer than 77 characters or (URL) carries a scheme,
 * a txid outside `[A-Za-z0-9]{1,25}`, a bad MCC or amount, or a name/city that folds to nothing
 * throws `BrCodeError`.
 */
export function buildBrCode(input: BrCodeInput): string {
  const merchantName = requiredText(input.merchantName, MAX_MERCHANT_NAME, 'merchantName');
  const merchantCity = requiredText(input.merchantCity, MAX_MERCHANT_CITY, 'merchantCity');
  const txid = input.txid ?? '***';
  if (!TXID_PATTERN.test(txid)) throw new BrCodeError('txid must be 1 to 25 letters and digits (or "***")');
  const mcc = input.merchantCategoryCode ?? '0000';
  if (!/^\d{4}$/.test(mcc)) throw new BrCodeError('merchantCategoryCode must be 4 digits');

  let payload = encodeField('00', '01');
  if (input.singleUse) payload += encodeField('01', '12');
  payload += encodeField('26', merchantAccount(input));
  payload += encodeField('52', mcc);
  payload += encodeField('53', '986');
  if (input.amount !== undefined) payload += encodeField('54', formatAmount(input.amount));
  payload += encodeField('58', 'BR');
  payload += encodeField('59', merchantName);
  payload += encodeField('60', merchantCity);
  payload += encodeField('62', encodeField('05', txid));
  payload += '6304';
  return payload + crc16Hex(payload);
}

function requiredText(text: string, maxLength: number, name: string): string {
  const folded = foldAndTruncate(text, maxLength);
  if (folded === '') throw new BrCodeError(`${name} is empty once folded to ASCII`);
  return folded;
}

function merchantAccount(input: BrCodeInput): string {
  let account = encodeField('00', GUI_PIX);
  if (input.pixKey !== undefined) {
    account += encodeField('01', identifier(input.pixKey, 'pixKey'));
  } else if (input.url !== undefined) {
    const url = identifier(input.url, 'url');
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
      throw new BrCodeError('url is the location without scheme (no "https://")');
    }
    account += encodeField('25', url);
  } else {
    throw new BrCodeError('either pixKey or url is required');
  }
  if (input.additionalInfo !== undefined) {
    const room = MAX_ACCOUNT_TEMPLATE - account.length - 4;
    const info = room > 0 ? foldAndTruncate(input.additionalInfo, room) : '';
    if (info !== '') account += encodeField('02', info);
  }
  return account;
}

function identifier(value: string, name: string): string {
  if (!/^[\x21-\x7e]+$/.test(value)) {
    throw new BrCodeError(`${name} must be non-empty printable ASCII without spaces`);
  }
  if (value.length > MAX_KEY_OR_URL)
    throw new BrCodeError(`${name} is longer than ${MAX_KEY_OR_URL} characters`);
  return value;
}
