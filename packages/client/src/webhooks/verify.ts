import { timingSafeEqual } from 'node:crypto';

import { StorefrontError } from '../core/errors.js';
import type { Event } from '../types/event.js';
import { readHeader, type WebhookHeaders } from './headers.js';
import { computeSignature, parseSignatureHeader, SIGNATURE_HEADER } from './signature.js';

/** Replay tolerance: a signature older than this is refused, in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookVerificationReason =
  | 'invalid_body'
  | 'missing_header'
  | 'malformed_header'
  | 'no_matching_signature'
  | 'timestamp_outside_tolerance'
  | 'invalid_json';

/** The delivery is not provably from the service: answer it with 400. */
export class WebhookVerificationError extends StorefrontError {
  override readonly name: string = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface VerifyWebhookParams {
  /** The request headers: a fetch `Headers` or Node's `req.headers` (any case). */
  headers: WebhookHeaders;
  /** The body exactly as received, before any JSON parsing: string, Buffer or Uint8Array. */
  rawBody: string | Uint8Array;
  /** The endpoint's whole signing secret, `whsec_…`. */
  secret: string;
  /** Accepted clock distance in seconds; default 300, `Infinity` turns the check off. */
  tolerance?: number;
}

const REPARSED_HINT =
  'The signature covers the exact bytes sent: pass the raw body (express.raw({ type: "application/json" }), ' +
  'or a Fastify content-type parser with parseAs "buffer"), not a parsed and re-serialized one.';

/** Checks the `Service-Signature` of a delivery and returns its event; throws WebhookVerificationError. */
export function verifyWebhook({
  headers,
  rawBody,
  secret,
  tolerance = DEFAULT_TOLERANCE_SECONDS,
}: VerifyWebhookParams): Event {
  if (typeof secret !== 'string' || secret === '') {
    throw new StorefrontError('verifyWebhook: `secret` must be the endpoint secret (whsec_…)');
  }
  if (typeof tolerance !== 'number' || Number.isNaN(tolerance) || tolerance < 0) {
    throw new StorefrontError(
      `verifyWebhook: \`tolerance\` must be a number of seconds >= 0, got ${tolerance}`,
    );
  }
  const body = checkRawBody(rawBody);

  const header = readHeader(headers, SIGNATURE_HEADER);
  if (header === undefined || header.trim() === '') {
    throw new WebhookVerificationError('missing_header', `No ${SIGNATURE_HEADER} header on the request`);
  }
  const parsed = parseSignatureHeader(header);
  if (parsed === null) {
    throw new WebhookVerificationError(
      'malformed_header',
      `Malformed ${SIGNATURE_HEADER} header: expected "t=<unix seconds>,v1=<hex signature>"`,
    );
  }

  // Signature before age, so a forged request is reported as forged even when it is also old.
  const expected = Buffer.from(computeSignature(secret, parsed.timestamp, body), 'utf8');
  if (!parsed.signatures.some((candidate) => sameBytes(expected, Buffer.from(candidate, 'utf8')))) {
    throw new WebhookVerificationError(
      'no_matching_signature',
      `No ${SIGNATURE_HEADER} v1 signature matches the body. Check that the secret is this endpoint's whole ` +
        `whsec_… value. ${REPARSED_HINT}` +
        (typeof rawBody === 'string' && rawBody.startsWith('[object ') ? ` (rawBody is "${rawBody}".)` : ''),
    );
  }

  const age = Math.abs(Math.floor(Date.now() / 1000) - parsed.timestamp);
  if (age > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_outside_tolerance',
      `Signature timestamp is ${age} s away from now, outside the ${tolerance} s tolerance ` +
        '(a replayed delivery, or a wrong clock on this machine)',
    );
  }

  try {
    return JSON.parse(Buffer.from(body).toString('utf8')) as Event;
  } catch {
    throw new WebhookVerificationError('invalid_json', 'The signed body is not valid JSON');
  }
}

function checkRawBody(rawBody: unknown): Uint8Array {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (rawBody instanceof Uint8Array) return rawBody;
  const got =
    rawBody === null ? 'null' : typeof rawBody === 'object' ? 'an already parsed object' : typeof rawBody;
  throw new WebhookVerificationError(
    'invalid_body',
    `verifyWebhook: rawBody must be a string, Buffer or Uint8Array, got ${got}. ${REPARSED_HINT}`,
  );
}

// timingSafeEqual needs equal lengths; a length mismatch already says "no match" and reveals nothing.
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
