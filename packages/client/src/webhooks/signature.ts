import { createHmac } from 'node:crypto';

/** The header that carries `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = 'Service-Signature';

export interface ParsedSignatureHeader {
  timestamp: number;
  /** Every `v1` value; more than one appears while a secret is being rotated. */
  signatures: string[];
}

/** HMAC-SHA256 of `<t>.<raw body>`, keyed with the whole `whsec_…` secret as UTF-8, in lowercase hex. */
export function computeSignature(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(`${timestamp}.`, 'utf8')
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

/** Null when the header has no integer `t` or no `v1`; unknown schemes are ignored. */
export function parseSignatureHeader(value: string): ParsedSignatureHeader | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const separator = part.indexOf('=');
    if (separator === -1) continue;
    const key = part.slice(0, separator).trim();
    const item = part.slice(separator + 1).trim();
    if (key === 't' && timestamp === null && /^\d+$/.test(item)) timestamp = Number(item);
    else if (key === 'v1' && item !== '') signatures.push(item.toLowerCase());
  }
  if (timestamp === null || signatures.length === 0) return null;
  return { timestamp, signatures };
}

export interface TestHeaderParams {
  /** The exact body your test will send. */
  payload: string | Uint8Array;
  secret: string;
  /** Unix seconds; now by default. */
  timestamp?: number;
}

/** A valid `Service-Signature` value, for testing your own webhook receiver. */
export function generateTestHeader({
  payload,
  secret,
  timestamp = Math.floor(Date.now() / 1000),
}: TestHeaderParams): string {
  return `t=${timestamp},v1=${computeSignature(secret, timestamp, payload)}`;
}
