import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';

import fc from 'fast-check';

import {
  generateTestHeader,
  StorefrontError,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from '../src/index.js';

const SECRET = 'whsec_5f2b0c1e9a7d4c3b8e6f1a2d0c9b8a7e';
const EVENT = {
  id: 'evt_1',
  object: 'event',
  type: 'pix.paid',
  created_at: '2026-11-22T10:00:00.000Z',
  livemode: false,
  data: { object: { object: 'pix_charge', id: 'pix_1', status: 'paid', amount: 49.9 } },
};
const BODY = JSON.stringify(EVENT);

const now = () => Math.floor(Date.now() / 1000);

/** Written from the documented rule alone, independent of the library: HMAC-SHA256 hex of "<t>.<raw body>". */
function sign(body: string | Uint8Array, timestamp = now(), secret = SECRET): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`);
  hmac.update(body);
  return hmac.digest('hex');
}

function header(body: string | Uint8Array, timestamp = now(), secret = SECRET): string {
  return `t=${timestamp},v1=${sign(body, timestamp, secret)}`;
}

function rejectsWith(reason: WebhookVerificationReason, run: () => unknown, message?: RegExp): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(
      error instanceof WebhookVerificationError,
      `expected WebhookVerificationError, got ${String(error)}`,
    );
    assert.ok(error instanceof StorefrontError);
    assert.equal(error.reason, reason);
    if (message) assert.match(error.message, message);
    return true;
  });
}

describe('verifyWebhook accepts', () => {
  it('a string body with a plain-object header, returning the parsed event', () => {
    const event = verifyWebhook({
      headers: { 'service-signature': header(BODY) },
      rawBody: BODY,
      secret: SECRET,
    });
    assert.deepEqual(event, EVENT);
    if (event.type === 'pix.paid') assert.equal(event.data.object.id, 'pix_1');
  });

  it('a Buffer body and a Uint8Array body', () => {
    const headers = { 'service-signature': header(BODY) };
    assert.equal(verifyWebhook({ headers, rawBody: Buffer.from(BODY), secret: SECRET }).id, 'evt_1');
    const bytes = new Uint8Array(Buffer.from(BODY));
    assert.equal(verifyWebhook({ headers, rawBody: bytes, secret: SECRET }).id, 'evt_1');
  });

  it('non-ASCII bodies, signed over their UTF-8 bytes', () => {
    const body = JSON.stringify({ ...EVENT, data: { object: { description: 'Curso de Violão — ação' } } });
    const bytes = Buffer.from(body, 'utf8');
    assert.ok(
      verifyWebhook({ headers: { 'Service-Signature': header(bytes) }, rawBody: body, secret: SECRET }),
    );
    assert.ok(
      verifyWebhook({ headers: { 'Service-Signature': header(bytes) }, rawBody: bytes, secret: SECRET }),
    );
  });

  it('a fetch Headers object, and header names in any case', () => {
    const value = header(BODY);
    assert.ok(
      verifyWebhook({ headers: new Headers({ 'Service-Signature': value }), rawBody: BODY, secret: SECRET }),
    );
    assert.ok(verifyWebhook({ headers: { 'SERVICE-SIGNATURE': value }, rawBody: BODY, secret: SECRET }));
  });

  it('any matching v1 among several, in a string or an array header', () => {
    const t = now();
    const stale = sign(BODY, t, 'whsec_old');
    const good = sign(BODY, t);
    const value = `t=${t},v1=${stale},v1=${good}`;
    assert.ok(verifyWebhook({ headers: { 'service-signature': value }, rawBody: BODY, secret: SECRET }));
    const split = { 'service-signature': [`t=${t},v1=${stale}`, `v1=${good}`] };
    assert.ok(verifyWebhook({ headers: split, rawBody: BODY, secret: SECRET }));
  });

  it('a header with spaces and unknown schemes', () => {
    const t = now();
    const value = ` t=${t} , v0=abc , v1=${sign(BODY, t)} `;
    assert.ok(verifyWebhook({ headers: { 'service-signature': value }, rawBody: BODY, secret: SECRET }));
  });

  it('a timestamp inside the tolerance, and a custom tolerance', () => {
    const t = now() - 200;
    assert.ok(
      verifyWebhook({ headers: { 'service-signature': header(BODY, t) }, rawBody: BODY, secret: SECRET }),
    );
    const old = now() - 3600;
    const headers = { 'service-signature': header(BODY, old) };
    assert.ok(verifyWebhook({ headers, rawBody: BODY, secret: SECRET, tolerance: 7200 }));
    assert.ok(verifyWebhook({ headers, rawBody: BODY, secret: SECRET, tolerance: Infinity }));
  });

  it('what generateTestHeader signs, which matches the independent HMAC', () => {
    const t = 1_790_000_000;
    assert.equal(generateTestHeader({ payload: BODY, secret: SECRET, timestamp: t }), header(BODY, t));
    const value = generateTestHeader({ payload: BODY, secret: SECRET });
    assert.ok(verifyWebhook({ headers: { 'service-signature': value }, rawBody: BODY, secret: SECRET }));
  });

  it('every body, secret and timestamp signed independently (property)', () => {
    fc.assert(
      fc.property(
        fc.json(),
        fc.string({ minLength: 1 }).map((tail) => `whsec_${tail}`),
        fc.integer({ min: -290, max: 290 }),
        (body, secret, skew) => {
          const t = now() + skew;
          const event = verifyWebhook({
            headers: { 'service-signature': `t=${t},v1=${sign(body, t, secret)}` },
            rawBody: body,
            secret,
          });
          assert.deepEqual(event, JSON.parse(body));
        },
      ),
    );
  });
});

describe('verifyWebhook rejects', () => {
  it('a request without the header', () => {
    rejectsWith(
      'missing_header',
      () => verifyWebhook({ headers: {}, rawBody: BODY, secret: SECRET }),
      /No Service-Signature/,
    );
    rejectsWith('missing_header', () =>
      verifyWebhook({ headers: { 'service-signature': undefined }, rawBody: BODY, secret: SECRET }),
    );
    rejectsWith('missing_header', () =>
      verifyWebhook({ headers: new Headers(), rawBody: BODY, secret: SECRET }),
    );
  });

  for (const value of [
    'garbage',
    `v1=${'a'.repeat(64)}`,
    `t=${now()}`,
    `t=soon,v1=${'a'.repeat(64)}`,
    't=,v1=',
  ]) {
    it(`a malformed header: ${JSON.stringify(value)}`, () => {
      rejectsWith(
        'malformed_header',
        () => verifyWebhook({ headers: { 'service-signature': value }, rawBody: BODY, secret: SECRET }),
        /Malformed/,
      );
    });
  }

  it('a timestamp older or newer than the tolerance', () => {
    for (const t of [now() - 301, now() + 301]) {
      rejectsWith(
        'timestamp_outside_tolerance',
        () =>
          verifyWebhook({ headers: { 'service-signature': header(BODY, t) }, rawBody: BODY, secret: SECRET }),
        /tolerance/,
      );
    }
    const t = now() - 20;
    rejectsWith('timestamp_outside_tolerance', () =>
      verifyWebhook({
        headers: { 'service-signature': header(BODY, t) },
        rawBody: BODY,
        secret: SECRET,
        tolerance: 10,
      }),
    );
  });

  it('a signature made with another secret, or with the secret minus its whsec_ prefix', () => {
    for (const secret of ['whsec_other', SECRET.slice('whsec_'.length)]) {
      rejectsWith(
        'no_matching_signature',
        () =>
          verifyWebhook({
            headers: { 'service-signature': header(BODY, now(), secret) },
            rawBody: BODY,
            secret: SECRET,
          }),
        /whole whsec_/,
      );
    }
  });

  it('a tampered body', () => {
    const headers = { 'service-signature': header(BODY) };
    rejectsWith('no_matching_signature', () =>
      verifyWebhook({ headers, rawBody: BODY.replace('49.9', '0.01'), secret: SECRET }),
    );
  });

  it('a re-serialized body, with a hint about the raw body', () => {
    const headers = { 'service-signature': header(BODY) };
    const reserialized = JSON.stringify(JSON.parse(BODY), null, 2);
    rejectsWith(
      'no_matching_signature',
      () => verifyWebhook({ headers, rawBody: reserialized, secret: SECRET }),
      /raw body/,
    );
    rejectsWith(
      'no_matching_signature',
      () => verifyWebhook({ headers, rawBody: String(EVENT), secret: SECRET }),
      /\[object Object\]/,
    );
  });

  it('a parsed object passed as rawBody, with a hint about the raw body', () => {
    rejectsWith(
      'invalid_body',
      () =>
        verifyWebhook({
          headers: { 'service-signature': header(BODY) },
          rawBody: EVENT as never,
          secret: SECRET,
        }),
      /already parsed object.*raw body/,
    );
  });

  it('a forged signature with an old timestamp as a signature failure', () => {
    const t = now() - 3600;
    const value = `t=${t},v1=${'0'.repeat(64)}`;
    rejectsWith('no_matching_signature', () =>
      verifyWebhook({ headers: { 'service-signature': value }, rawBody: BODY, secret: SECRET }),
    );
  });

  it('a correctly signed body that is not JSON', () => {
    const body = 'not json';
    rejectsWith(
      'invalid_json',
      () => verifyWebhook({ headers: { 'service-signature': header(body) }, rawBody: body, secret: SECRET }),
      /not valid JSON/,
    );
  });

  it('a missing secret or a negative tolerance as a usage error', () => {
    const headers = { 'service-signature': header(BODY) };
    assert.throws(() => verifyWebhook({ headers, rawBody: BODY, secret: '' }), StorefrontError);
    assert.throws(
      () => verifyWebhook({ headers, rawBody: BODY, secret: SECRET, tolerance: -1 }),
      StorefrontError,
    );
  });

  it('any single changed byte of the body (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: BODY.length - 1 }), fc.integer({ min: 1, max: 255 }), (index, delta) => {
        const bytes = Buffer.from(BODY);
        bytes[index] = ((bytes[index] ?? 0) + delta) % 256;
        rejectsWith('no_matching_signature', () =>
          verifyWebhook({ headers: { 'service-signature': header(BODY) }, rawBody: bytes, secret: SECRET }),
        );
      }),
    );
  });
});
