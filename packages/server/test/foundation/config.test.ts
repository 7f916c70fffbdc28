import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/platform/config/config.js';

const MAIL_FROM = 'Minha Loja <vendas@minhaloja.com.br>';
const sqlite = () => `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-config-')), 'db.sqlite')}`;

describe('configuration from the environment', () => {
  it('has the documented defaults', () => {
    const url = sqlite();
    const config = loadConfig({ DATABASE_URL: url });
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: url,
      redisUrl: null,
      worker: 'inline',
      rateLimitPerSecond: 100,
      webhookTimeoutMs: 10_000,
      processes: 1,
    });
    expect(config.webhookRetryScheduleMs).toEqual([5e3, 6e4, 3e5, 18e5, 72e5, 216e5, 432e5, 864e5]);
    // Delivery e-mail retries: 1 min, 5 min, 30 min, 2 h, 6 h.
    expect(config.emailRetryScheduleMs).toEqual([6e4, 3e5, 18e5, 72e5, 216e5]);
    // Page views counted in memory are written at least every 5 s.
    expect(config.pageViewFlushMs).toBe(5000);
    expect(config.webhookAllowedHosts.size).toBe(0);
    expect(config.publicUrl).toBe('http://127.0.0.1:3000');
    expect(config).toMatchObject({ pspConnectTimeoutMs: 5000, pspRequestTimeoutMs: 15_000 });
    expect(config.pixReconcileScheduleMs).toEqual([15_000, 60_000, 300_000]);
    expect(config.sse).toEqual({ perToken: 5, perIp: 50, perProcess: 1000, maxLifetimeMs: 600_000 });
    expect(config.testMailAllow.addresses.size + config.testMailAllow.domains.size).toBe(0);
    expect(config.connections).toEqual({
      maxPerProcess: 10_000,
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 5_000,
    });
    expect(config).toMatchObject({ logLevel: 'info', authFailureRateLimitPerMinute: 30 });
  });

  it('takes the connection limits at their bounds', () => {
    const low = loadConfig({
      DATABASE_URL: sqlite(),
      STOREFRONT_MAX_CONNECTIONS: '1',
      STOREFRONT_HEADERS_TIMEOUT_MS: '100',
      STOREFRONT_REQUEST_TIMEOUT_MS: '100',
      STOREFRONT_KEEP_ALIVE_TIMEOUT_MS: '100',
    });
    expect(low.connections).toEqual({
      maxPerProcess: 1,
      headersTimeoutMs: 100,
      requestTimeoutMs: 100,
      keepAliveTimeoutMs: 100,
    });
    const high = loadConfig({
      DATABASE_URL: sqlite(),
      STOREFRONT_MAX_CONNECTIONS: '1000000',
      STOREFRONT_HEADERS_TIMEOUT_MS: '600000',
      STOREFRONT_REQUEST_TIMEOUT_MS: '3600000',
      STOREFRONT_KEEP_ALIVE_TIMEOUT_MS: '600000',
    });
    expect(high.connections).toEqual({
      maxPerProcess: 1_000_000,
      headersTimeoutMs: 600_000,
      requestTimeoutMs: 3_600_000,
      keepAliveTimeoutMs: 600_000,
    });
  });

  it('takes the limits on order-page streams, at their bounds', () => {
    const config = loadConfig({
      DATABASE_URL: sqlite(),
      STOREFRONT_SSE_PER_TOKEN: '1',
      STOREFRONT_SSE_PER_IP: '100000',
      STOREFRONT_SSE_PER_PROCESS: '10000',
      STOREFRONT_SSE_MAX_LIFETIME: '24h',
    });
    expect(config.sse).toEqual({
      perToken: 1,
      perIp: 100_000,
      perProcess: 10_000,
      maxLifetimeMs: 86_400_000,
    });
    expect(loadConfig({ DATABASE_URL: sqlite(), STOREFRONT_SSE_MAX_LIFETIME: '1s' }).sse.maxLifetimeMs).toBe(
      1000,
    );
  });

  it('reads STOREFRONT_TEST_MAIL_ALLOW: addresses and @domains, lower-cased, spaces around commas ignored', () => {
    const { testMailAllow } = loadConfig({
      DATABASE_URL: sqlite(),
      STOREFRONT_TEST_MAIL_ALLOW: ' Ana@Loja.com.br , @Equipe.Example,bia@outra.example ',
    });
    expect([...testMailAllow.addresses]).toEqual(['ana@loja.com.br', 'bia@outra.example']);
    expect([...testMailAllow.domains]).toEqual(['equipe.example']);
  });

  it('takes the live Pix timeouts and reconcile schedule, at their bounds', () => {
    const config = loadConfig({
      DATABASE_URL: sqlite(),
      STOREFRONT_PSP_CONNECT_TIMEOUT_MS: '100',
      STOREFRONT_PSP_TIMEOUT_MS: '120000',
      STOREFRONT_PIX_RECONCILE_SCHEDULE: '150ms,2s',
    });
    expect(config).toMatchObject({ pspConnectTimeoutMs: 100, pspRequestTimeoutMs: 120_000 });
    expect(config.pixReconcileScheduleMs).toEqual([150, 2000]);
  });

  it('takes STOREFRONT_PUBLIC_URL as an origin, and defaults it to the listen address', () => {
    expect(
      loadConfig({ DATABASE_URL: sqlite(), STOREFRONT_PUBLIC_URL: 'https://Pay.Example.com/' }).publicUrl,
    ).toBe('https://pay.example.com');
    expect(loadConfig({ DATABASE_URL: sqlite(), HOST: '::1', PORT: '8080' }).publicUrl).toBe(
      'http://[::1]:8080',
    );
  });

  it('generates a secret beside a SQLite database once and reuses it', () => {
    const url = sqlite();
    const first = loadConfig({ DATABASE_URL: url }).secret;
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({ DATABASE_URL: url }).secret).toBe(first);
    expect(readFileSync(join(url.slice('sqlite:'.length), '..', 'storefront.secret'), 'utf8').trim()).toBe(
      first,
    );
  });

  it('parses retry schedules and allowed hosts', () => {
    const config = loadConfig({
      DATABASE_URL: sqlite(),
      STOREFRONT_WEBHOOK_RETRY_SCHEDULE: '100ms, 2s,1m',
      STOREFRONT_WEBHOOK_ALLOWED_HOSTS: 'Localhost, 127.0.0.1,[::1],hooks.example.com.',
    });
    expect(config.webhookRetryScheduleMs).toEqual([100, 2000, 60000]);
    expect([...config.webhookAllowedHosts]).toEqual(['localhost', '127.0.0.1', '::1', 'hooks.example.com']);
  });

  it('takes STOREFRONT_PROCESSES as a whole number from 1, or auto for the available cores', () => {
    const processes = (value: string) =>
      loadConfig({ DATABASE_URL: sqlite(), STOREFRONT_PROCESSES: value }).processes;
    expect(processes('1')).toBe(1);
    expect(processes('3')).toBe(3);
    expect(processes('1024')).toBe(1024);
    expect(processes('auto')).toBe(availableParallelism());
  });

  it('reads SMTP_URL and STOREFRONT_MAIL_FROM: STARTTLS on smtp://, TLS on smtps://, credentials decoded', () => {
    expect(loadConfig({ DATABASE_URL: sqlite() }).smtp).toBeNull();
    expect(
      loadConfig({
        DATABASE_URL: sqlite(),
        SMTP_URL: 'smtp://vendas%40loja.com:p%40ss@smtp.example.com:2525',
        STOREFRONT_MAIL_FROM: MAIL_FROM,
      }).smtp,
    ).toEqual({
      host: 'smtp.example.com',
      port: 2525,
      secure: false,
      auth: { user: 'vendas@loja.com', pass: 'p@ss' },
      from: MAIL_FROM,
      fromDomain: 'minhaloja.com.br',
    });
    const smtps = loadConfig({
      DATABASE_URL: sqlite(),
      SMTP_URL: 'smtps://[::1]',
      STOREFRONT_MAIL_FROM: 'vendas@Loja.example.com',
    }).smtp;
    expect(smtps).toMatchObject({
      host: '::1',
      port: 465,
      secure: true,
      auth: null,
      fromDomain: 'loja.example.com',
    });
    expect(
      loadConfig({ DATABASE_URL: sqlite(), SMTP_URL: 'smtp://h', STOREFRONT_MAIL_FROM: 'a@b.co' }).smtp?.port,
    ).toBe(587);
  });

  const bad: Array<[string, Record<string, string>]> = [
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x' }],
    ['STOREFRONT_SECRET', { DATABASE_URL: 'postgres://u@h/db' }],
    ['STOREFRONT_SECRET', { STOREFRONT_SECRET: 'short' }],
    ['STOREFRONT_WORKER', { STOREFRONT_WORKER: 'sometimes' }],
    ['STOREFRONT_RATE_LIMIT', { STOREFRONT_RATE_LIMIT: '0' }],
    ['STOREFRONT_WEBHOOK_RETRY_SCHEDULE', { STOREFRONT_WEBHOOK_RETRY_SCHEDULE: '5s,soon' }],
    ['STOREFRONT_WEBHOOK_TIMEOUT_MS', { STOREFRONT_WEBHOOK_TIMEOUT_MS: '10s' }],
    ['REDIS_URL', { REDIS_URL: 'localhost:6379' }],
    ['STOREFRONT_PSP_CONNECT_TIMEOUT_MS', { STOREFRONT_PSP_CONNECT_TIMEOUT_MS: '99' }],
    ['STOREFRONT_PSP_TIMEOUT_MS', { STOREFRONT_PSP_TIMEOUT_MS: '120001' }],
    ['STOREFRONT_PIX_RECONCILE_SCHEDULE', { STOREFRONT_PIX_RECONCILE_SCHEDULE: '15s,later' }],
    ['STOREFRONT_MAX_CONNECTIONS', { STOREFRONT_MAX_CONNECTIONS: '0' }],
    ['STOREFRONT_MAX_CONNECTIONS', { STOREFRONT_MAX_CONNECTIONS: '1000001' }],
    ['STOREFRONT_HEADERS_TIMEOUT_MS', { STOREFRONT_HEADERS_TIMEOUT_MS: '99' }],
    ['STOREFRONT_HEADERS_TIMEOUT_MS', { STOREFRONT_HEADERS_TIMEOUT_MS: '30001' }],
    ['STOREFRONT_REQUEST_TIMEOUT_MS', { STOREFRONT_REQUEST_TIMEOUT_MS: '30s' }],
    ['STOREFRONT_REQUEST_TIMEOUT_MS', { STOREFRONT_REQUEST_TIMEOUT_MS: '3600001' }],
    ['STOREFRONT_KEEP_ALIVE_TIMEOUT_MS', { STOREFRONT_KEEP_ALIVE_TIMEOUT_MS: '600001' }],
    ['STOREFRONT_AUTH_FAILURE_RATE_LIMIT', { STOREFRONT_AUTH_FAILURE_RATE_LIMIT: '0' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'verbose' }],
    ['STOREFRONT_PROCESSES', { STOREFRONT_PROCESSES: '0' }],
    ['STOREFRONT_PROCESSES', { STOREFRONT_PROCESSES: '1025' }],
    ['STOREFRONT_PROCESSES', { STOREFRONT_PROCESSES: '2.5' }],
    ['STOREFRONT_PROCESSES', { STOREFRONT_PROCESSES: 'all' }],
    ['STOREFRONT_SSE_PER_TOKEN', { STOREFRONT_SSE_PER_TOKEN: '0' }],
    ['STOREFRONT_SSE_PER_TOKEN', { STOREFRONT_SSE_PER_TOKEN: '1001' }],
    ['STOREFRONT_SSE_PER_IP', { STOREFRONT_SSE_PER_IP: '100001' }],
    ['STOREFRONT_SSE_PER_PROCESS', { STOREFRONT_SSE_PER_PROCESS: '10001' }],
    ['STOREFRONT_SSE_PER_PROCESS', { STOREFRONT_SSE_PER_PROCESS: 'lots' }],
    ['STOREFRONT_SSE_MAX_LIFETIME', { STOREFRONT_SSE_MAX_LIFETIME: '999ms' }],
    ['STOREFRONT_SSE_MAX_LIFETIME', { STOREFRONT_SSE_MAX_LIFETIME: '25h' }],
    ['STOREFRONT_SSE_MAX_LIFETIME', { STOREFRONT_SSE_MAX_LIFETIME: '600' }],
    ['STOREFRONT_TEST_MAIL_ALLOW', { STOREFRONT_TEST_MAIL_ALLOW: 'ana@loja.com.br,maria' }],
    ['STOREFRONT_TEST_MAIL_ALLOW', { STOREFRONT_TEST_MAIL_ALLOW: 'loja.com.br' }],
    ['STOREFRONT_TEST_MAIL_ALLOW', { STOREFRONT_TEST_MAIL_ALLOW: '@localhost' }],
    ['STOREFRONT_TEST_MAIL_ALLOW', { STOREFRONT_TEST_MAIL_ALLOW: 'ana@loja.com.br,,bia@loja.com.br' }],
    ['STOREFRONT_PUBLIC_URL', { STOREFRONT_PUBLIC_URL: 'pay.example.com' }],
    ['STOREFRONT_PUBLIC_URL', { STOREFRONT_PUBLIC_URL: 'ftp://pay.example.com' }],
    ['STOREFRONT_PUBLIC_URL', { STOREFRONT_PUBLIC_URL: 'https://pay.example.com/store' }],
    ['SMTP_URL', { SMTP_URL: 'mail.example.com:587', STOREFRONT_MAIL_FROM: MAIL_FROM }],
    ['SMTP_URL', { SMTP_URL: 'http://mail.example.com', STOREFRONT_MAIL_FROM: MAIL_FROM }],
    ['SMTP_URL', { SMTP_URL: 'smtp://mail.example.com:587/x?pool=true', STOREFRONT_MAIL_FROM: MAIL_FROM }],
    ['SMTP_URL', { SMTP_URL: 'smtp://us%zzer:p@mail.example.com', STOREFRONT_MAIL_FROM: MAIL_FROM }],
    ['STOREFRONT_MAIL_FROM', { SMTP_URL: 'smtp://mail.example.com' }],
    ['STOREFRONT_MAIL_FROM', { SMTP_URL: 'smtp://mail.example.com', STOREFRONT_MAIL_FROM: 'Loja' }],
    [
      'STOREFRONT_MAIL_FROM',
      { SMTP_URL: 'smtp://mail.example.com', STOREFRONT_MAIL_FROM: 'a@b.com, c@d.com' },
    ],
  ];
  for (const [variable, env] of bad) {
    it(`refuses a bad ${variable} (${JSON.stringify(env)}) naming the variable`, () => {
      const attempt = () => loadConfig({ DATABASE_URL: sqlite(), ...env });
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(new RegExp(`^${variable}:`));
    });
  }
});
