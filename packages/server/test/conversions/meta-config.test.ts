import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config/config.js';
import { attemptOf } from '../../src/flows/send-meta-conversions.js';
import { normaliseEmail, normalisePhone, userDataOf } from '../../src/domain/conversions/meta-payload.js';
import { certificateFor } from '../support/https-receiver.js';
import { sha256 } from './meta-support.js';

const base = { DATABASE_URL: 'sqlite::memory:', STOREFRONT_SECRET: 'x'.repeat(32) };
const configError = (env: Record<string, string>) => {
  try {
    loadConfig({ ...base, ...env });
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('no ConfigError');
};

describe('Meta Conversions API settings', () => {
  it('defaults to Meta’s Graph API with its version, a 10 s timeout and the 1m/5m/30m/2h retries', () => {
    expect(loadConfig(base).meta).toEqual({
      apiUrl: 'https://graph.facebook.com/v21.0',
      ca: null,
      timeoutMs: 10_000,
      retryScheduleMs: [60_000, 300_000, 1_800_000, 7_200_000],
    });
  });

  it('takes an https base (trailing slash dropped), a PEM file and a timeout; refuses anything else by name', () => {
    const dir = mkdtempSync(join(tmpdir(), 'meta-ca-'));
    const pem = join(dir, 'ca.pem');
    writeFileSync(pem, certificateFor('127.0.0.1').cert);
    const meta = loadConfig({
      ...base,
      STOREFRONT_META_API_URL: 'https://127.0.0.1:8443/v21.0/',
      STOREFRONT_META_API_CA: pem,
      STOREFRONT_META_API_TIMEOUT_MS: '2500',
    }).meta;
    expect(meta).toMatchObject({ apiUrl: 'https://127.0.0.1:8443/v21.0', timeoutMs: 2500 });
    expect(meta.ca).toContain('BEGIN CERTIFICATE');
    expect(configError({ STOREFRONT_META_API_URL: 'http://graph.facebook.com/v21.0' })).toMatch(
      /^STOREFRONT_META_API_URL: must be an https URL/,
    );
    expect(configError({ STOREFRONT_META_API_URL: 'https://graph.facebook.com/v21.0?x=1' })).toMatch(
      /^STOREFRONT_META_API_URL/,
    );
    expect(configError({ STOREFRONT_META_API_CA: join(dir, 'missing.pem') })).toMatch(
      /^STOREFRONT_META_API_CA: cannot read .*ENOENT/,
    );
    writeFileSync(join(dir, 'empty.pem'), 'nothing');
    expect(configError({ STOREFRONT_META_API_CA: join(dir, 'empty.pem') })).toMatch(
      /holds no PEM certificate/,
    );
    expect(configError({ STOREFRONT_META_API_TIMEOUT_MS: '50' })).toMatch(
      /^STOREFRONT_META_API_TIMEOUT_MS: must be between 100 and 120000/,
    );
  });
});

describe('Meta event data', () => {
  it('normalises before hashing: e-mail trimmed and lower-case, Brazilian phones with 55, names as letters', () => {
    expect(normaliseEmail('  Maria@Example.COM ')).toBe('maria@example.com');
    expect(normalisePhone('11987654321')).toBe('5511987654321');
    expect(normalisePhone('1132654321')).toBe('551132654321');
    expect(normalisePhone('+5511987654321')).toBe('5511987654321');
    expect(normalisePhone('+14155550123')).toBe('14155550123');
    const data = userDataOf({
      kind: 'Purchase',
      eventId: 'x',
      occurredAt: '2026-01-01T00:00:00.000Z',
      amountCents: 100,
      productIds: [],
      customer: { name: "  Ana  D'Ávila  ", email: 'a@b.co' },
      order: null,
      pageUrl: null,
    });
    expect(data).toEqual({ em: [sha256('a@b.co')], fn: [sha256('ana')], ln: [sha256('dávila')] });
  });

  it('retries 5xx, 408, 429 and transport failures; fails at once on other 4xx with Meta’s words', () => {
    const body = JSON.stringify({ error: { message: 'Invalid parameter', code: 100 } });
    expect(attemptOf({ ok: false, status: 400, body, durationMs: 1 }, 1000)).toEqual({
      ok: false,
      status: 400,
      error: 'Meta answered 400: Invalid parameter',
      permanent: true,
    });
    for (const status of [408, 429, 500, 503])
      expect(attemptOf({ ok: false, status, body: 'x', durationMs: 1 }, 1000).permanent).toBe(false);
    expect(attemptOf({ ok: false, status: 403, body: '<html>', durationMs: 1 }, 1000)).toMatchObject({
      permanent: true,
      error: 'Meta answered 403.',
    });
    expect(
      attemptOf({ ok: false, status: null, code: 'timeout', error: 'timeout', durationMs: 1000 }, 1000),
    ).toEqual({
      ok: false,
      status: null,
      error: 'Meta could not be reached: no answer within 1000 ms.',
      permanent: false,
    });
  });
});
