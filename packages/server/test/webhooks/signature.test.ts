import { createHmac, timingSafeEqual } from 'node:crypto';
import { describe, it, expect } from 'vitest';
import { generateWebhookSecret, signPayload } from '../../src/domain/webhooks/signature.js';

/** What a receiver does, written independently of signature.ts. */
function receiverVerifies(header: string, secret: string, rawBody: string): boolean {
  const parts = header.split(',').map((p) => p.split('=') as [string, string]);
  const t = parts.find(([k]) => k === 't')?.[1];
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  return parts
    .filter(([k]) => k === 'v1')
    .some(([, v]) => {
      const given = Buffer.from(v, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
}

describe('signPayload', () => {
  const secret = 'whsec_5f2b1c9d8e7a6b5c4d3e2f1a0b9c8d7e';
  const body = '{"id":"evt_1","object":"event","type":"pix.paid","data":{"object":{"amount":10.5}}}';

  it('produces t=<unix>,v1=<hex hmac of "<t>.<body>"> keyed with the whole secret', () => {
    const header = signPayload(secret, 1_763_800_000, body);
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(`1763800000.${body}`, 'utf8')
      .digest('hex');
    expect(header).toBe(`t=1763800000,v1=${expected}`);
    expect(receiverVerifies(header, secret, body)).toBe(true);
  });

  it('matches a known vector', () => {
    // echo -n '1700000000.{}' | openssl dgst -sha256 -hmac 'whsec_test'
    expect(signPayload('whsec_test', 1_700_000_000, '{}')).toBe(
      't=1700000000,v1=35495024f4ef3f94e5a93e22221544c4b75e9a42300cd965ab81cb85cd994e91',
    );
  });

  it('signs the raw body byte for byte, including non-ASCII text', () => {
    const raw = '{"nome":"Curso de Violão","preço":"R$ 10,00"}';
    const header = signPayload(secret, 1_763_800_000, raw);
    expect(receiverVerifies(header, secret, raw)).toBe(true);
    expect(receiverVerifies(header, secret, JSON.stringify(JSON.parse(raw), null, 1))).toBe(false);
  });

  it('fails verification with another secret, body or timestamp', () => {
    const header = signPayload(secret, 1_763_800_000, body);
    expect(receiverVerifies(header, 'whsec_other', body)).toBe(false);
    expect(receiverVerifies(header, secret.slice('whsec_'.length), body)).toBe(false);
    expect(receiverVerifies(header, secret, body + ' ')).toBe(false);
    expect(receiverVerifies(header.replace('t=1763800000', 't=1763800001'), secret, body)).toBe(false);
  });

  it('refuses a timestamp that is not a whole number of seconds', () => {
    expect(() => signPayload(secret, 1.5, body)).toThrow(RangeError);
    expect(() => signPayload(secret, Date.now() / 1000, body)).toThrow(RangeError);
  });
});

describe('generateWebhookSecret', () => {
  it('returns whsec_ followed by 64 random hex characters', () => {
    const secrets = new Set(Array.from({ length: 100 }, generateWebhookSecret));
    expect(secrets.size).toBe(100);
    for (const s of secrets) expect(s).toMatch(/^whsec_[0-9a-f]{64}$/);
  });
});
