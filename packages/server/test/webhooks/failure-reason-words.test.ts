import { describe, expect, it } from 'vitest';
import { failureReason, failureReasonInPortuguese } from '../../src/platform/outbound/failure-reason.js';

/** Every reason a failed attempt can be given, as the delivery history stores it. */
const REASONS = [
  { ok: false, status: null, code: 'timeout' },
  { ok: false, status: 200, code: 'timeout' },
  { ok: false, status: 302 },
  { ok: false, status: 500 },
  { ok: false, status: null },
  { ok: false, status: null, code: 'UND_ERR_CONNECT_TIMEOUT' },
  ...[
    'ECONNREFUSED',
    'ECONNRESET',
    'UND_ERR_SOCKET',
    'EPIPE',
    'ENOTFOUND',
    'EAI_AGAIN',
    'EHOSTUNREACH',
    'ENETUNREACH',
    'EBLOCKEDADDRESS',
    'aborted',
    'unsignable',
    'CERT_HAS_EXPIRED',
    'EPROTO',
    'not a code!',
  ].map((code) => ({ ok: false, status: null, code })),
].map((result) => failureReason(result, 10_000)!);

describe('a failed delivery, as the dashboard words it', () => {
  it.each(REASONS)('"%s" reads in Portuguese', (reason) => {
    const words = failureReasonInPortuguese(reason);
    expect(words).not.toBe(reason);
    expect(words).not.toMatch(/\b(the|not|answered|within|error|refused|connection|host)\b/i);
  });

  it('keeps the figures: the status and the time', () => {
    expect(failureReasonInPortuguese(failureReason({ ok: false, status: 503 }, 10_000)!)).toBe(
      'respondeu 503; só uma resposta 2xx conta como entregue',
    );
    expect(
      failureReasonInPortuguese(failureReason({ ok: false, status: null, code: 'timeout' }, 7000)!),
    ).toBe('sem resposta em 7000 ms');
  });
});
