import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import ipaddr from 'ipaddr.js';
import addressparser from 'nodemailer/lib/addressparser';
import { parseTestMailAllow } from './test-mail-allow.js';
import type { TestMailAllow } from './test-mail-allow.js';
import { parseAllowedEndpoints, parseAllowedHosts } from '../outbound/url-policy.js';

/** Everything the service reads from its environment, validated once at start. */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | null;
  secret: string;
  worker: 'inline' | 'off';
  rateLimitPerSecond: number;
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  webhookAllowedHosts: ReadonlySet<string>;
  logLevel: string;
  /** The origin buyers and PSPs reach this service at, without a trailing slash. */
  publicUrl: string;
  /** Live Pix: TCP + TLS handshake limit towards a PSP. */
  pspConnectTimeoutMs: number;
  /** Live Pix: the whole of one API Pix call. */
  pspRequestTimeoutMs: number;
  /**
   * PSP endpoints (`host` or `host:port`) exempt from the public-address rule
   * (STOREFRONT_PSP_ALLOWED_HOSTS): store owners choose PSP URLs, the operator chooses the exceptions.
   */
  pspAllowedHosts: ReadonlySet<string>;
  /** Live Pix: when pending live charges are checked at the PSP after creation; the last step repeats. */
  pixReconcileScheduleMs: number[];
  /** Card payments: when undecided live payments are read at their PSP after creation; the last step repeats for 24 h. */
  cardReconcileScheduleMs: number[];
  /** Purchase-page orders a minute per (IP, store). */
  orderRateLimitPerMinute: number;
  /** PSP callbacks a minute per store (its callback token), over which they are answered 429. */
  pixCallbackRateLimitPerMinute: number;
  /** Bearer token of GET /metrics; null: no metrics endpoint (404). */
  metricsToken: string | null;
  /** Events, attempts and other transient records older than this are pruned. */
  retentionDays: number;
  /** HTTP processes `serve` runs on one port; more than 1 adds a primary that supervises them. */
  processes: number;
  /** Where delivery e-mails go out; null without SMTP_URL (sales then say `skipped`). */
  smtp: SmtpSettings | null;
  /** Delays before delivery e-mail retries 1..n after a temporary failure (no variable: tests shorten it). */
  emailRetryScheduleMs: number[];
  /** What one HTTP process lets its clients hold: sockets, and how long each may take. */
  connections: ConnectionLimits;
  /** Failed API key authentications a minute per client IP before 429. */
  authFailureRateLimitPerMinute: number;
  /** Who else (besides the store's team) a test sale paid with the purchase page's simulate button may e-mail. */
  testMailAllow: TestMailAllow;
  /** Order pages' live-status streams (Server-Sent Events): how many may be open, and for how long. */
  sse: SseSettings;
  /** How often each HTTP process writes the page views it counted (no variable: tests shorten it). */
  pageViewFlushMs: number;
  /**
   * Which proxies' X-Forwarded-For / -Proto / -Host are believed (Fastify's `trustProxy`): a number
   * of hops, or addresses and CIDR ranges; false: none (the client is the socket's peer).
   */
  trustProxy: number | string[] | false;
  /** Meta Conversions API: where events go, what else to trust there, and how long one may take. */
  meta: MetaApiSettings;
}

export interface MetaApiSettings {
  /** `STOREFRONT_META_API_URL`: the Graph API base with its version, without a trailing slash. */
  apiUrl: string;
  /** `STOREFRONT_META_API_CA`: extra PEM certificates trusted for it (a test fake), besides Node's. */
  ca: string | null;
  timeoutMs: number;
  /** Delays before retries 1..n after a temporary failure (no variable: tests shorten it). */
  retryScheduleMs: number[];
}

export interface ConnectionLimits {
  /** Open sockets per HTTP process; a connection beyond is closed as soon as it is accepted. */
  maxPerProcess: number;
  /** From a connection's start (or its previous answer), to receive a request's headers. */
  headersTimeoutMs: number;
  /** To receive a whole request, headers and body; it is also how long a stop waits for one. */
  requestTimeoutMs: number;
  /** How long a keep-alive socket may wait, idle, for its next request. */
  keepAliveTimeoutMs: number;
}

export interface SseSettings {
  /** Open streams per order token. */
  perToken: number;
  /** Open streams per client IP. */
  perIp: number;
  /** Open streams per HTTP process. */
  perProcess: number;
  /** A stream ends after this long; the page then opens a new one or polls. */
  maxLifetimeMs: number;
}

export interface SmtpSettings {
  host: string;
  port: number;
  /** smtps://: TLS from the first byte. smtp:// upgrades with STARTTLS whenever the server offers it. */
  secure: boolean;
  auth: { user: string; pass: string } | null;
  /** STOREFRONT_MAIL_FROM as given (`Loja <vendas@loja.com.br>` or a bare address). */
  from: string;
  /** The domain of the From address: the right-hand side of every Message-ID. */
  fromDomain: string;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULT_DATABASE_URL = 'sqlite:./data/storefront.sqlite';
const DEFAULT_RETRY_SCHEDULE = '5s,1m,5m,30m,2h,6h,12h,24h';
const DEFAULT_RECONCILE_SCHEDULE = '15s,1m,5m';
/** A crash loses at most this much of the page views counted in memory. */
const PAGE_VIEW_FLUSH_MS = 5_000;
export const DEFAULT_META_API_URL = 'https://graph.facebook.com/v21.0';
const META_RETRY_SCHEDULE_MS = [60_000, 300_000, 1_800_000, 7_200_000];
const EMAIL_RETRY_SCHEDULE_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000];
const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

type Env = Record<string, string | undefined>;

function integerIn(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function parseDuration(name: string, raw: string): number {
  const match = /^(\d+)(ms|s|m|h|d)$/.exec(raw.trim());
  if (!match) throw new ConfigError(name, `"${raw}" is not a duration like 5s, 1m, 2h`);
  return Number(match[1]) * DURATION_UNITS_MS[match[2]!]!;
}

function parseDatabaseUrl(raw: string): string {
  if (raw.startsWith('sqlite:') && raw.length > 'sqlite:'.length) return raw;
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
      return raw;
    } catch {
      /* falls through to the error below */
    }
  }
  throw new ConfigError('DATABASE_URL', `must be sqlite:<path> or postgres://…, got "${raw}"`);
}

/** SQLite installs get a generated secret kept beside the database, so `npm start` needs no setup. */
function secretFileFor(databaseUrl: string): string {
  const path = databaseUrl.slice('sqlite:'.length);
  return join(path === ':memory:' ? './data' : dirname(path), 'storefront.secret');
}

function loadOrCreateSecret(databaseUrl: string): string {
  const file = secretFileFor(databaseUrl);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const secret = randomBytes(32).toString('base64url');
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 }); // the database's directory too
  writeFileSync(file, secret + '\n', { mode: 0o600 });
  return secret;
}

/**
 * `STOREFRONT_PUBLIC_URL`: where the world reaches this service (PSP callbacks and purchase pages are
 * built on it). Defaults to the listen address; only an origin (scheme, host, port) is accepted.
 */
function parsePublicUrl(raw: string | undefined, host: string, port: number): string {
  if (raw === undefined || raw === '') {
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(
      'STOREFRONT_PUBLIC_URL',
      `must be an http(s) origin like https://pay.example.com, got "${raw}"`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError('STOREFRONT_PUBLIC_URL', `must start with https:// or http://, got "${raw}"`);
  }
  if (
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    (url.pathname !== '/' && url.pathname !== '')
  ) {
    throw new ConfigError(
      'STOREFRONT_PUBLIC_URL',
      `must be an origin only (no path, query or credentials), got "${raw}"`,
    );
  }
  return url.origin;
}

export const MAX_RETENTION_DAYS = 3650;

/** A scrape token is a credential: long enough not to be guessed, sendable as a bearer token. */
function parseMetricsToken(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (raw.length < 16 || !/^[\x21-\x7e]+$/.test(raw)) {
    throw new ConfigError(
      'STOREFRONT_METRICS_TOKEN',
      'must be at least 16 printable characters without spaces (e.g. openssl rand -hex 32)',
    );
  }
  return raw;
}

/** `STOREFRONT_PROCESSES`: a whole number of HTTP processes, or `auto` for one per available core. */
function parseProcesses(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 1;
  if (raw === 'auto') return availableParallelism();
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= 1 && value <= 1024)) {
    throw new ConfigError(
      'STOREFRONT_PROCESSES',
      `must be "auto" or a whole number from 1 to 1024, got "${raw}"`,
    );
  }
  return value;
}

/**
 * `SMTP_URL` (`smtp://user:pass@host:587` or `smtps://…:465`) and `STOREFRONT_MAIL_FROM`, which it
 * requires. Credentials in the URL are percent-decoded, so a password may contain `@` written `%40`.
 */
function parseSmtp(rawUrl: string | undefined, rawFrom: string | undefined): SmtpSettings | null {
  if (rawUrl === undefined || rawUrl === '') return null;
  const example = 'like smtp://user:pass@smtp.example.com:587 or smtps://user:pass@smtp.example.com:465';
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ConfigError('SMTP_URL', `must be a URL ${example}, got a malformed value`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new ConfigError(
      'SMTP_URL',
      `must start with smtp:// or smtps:// (${example}), got "${url.protocol}//"`,
    );
  if (url.hostname === '') throw new ConfigError('SMTP_URL', `names no host (${example})`);
  if (url.search || url.hash || (url.pathname !== '' && url.pathname !== '/'))
    throw new ConfigError('SMTP_URL', `must be only scheme, credentials, host and port (${example})`);
  const secure = url.protocol === 'smtps:';
  let auth: SmtpSettings['auth'] = null;
  try {
    if (url.username !== '')
      auth = { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
  } catch {
    throw new ConfigError('SMTP_URL', 'has a malformed %-escape in its user name or password');
  }

  if (rawFrom === undefined || rawFrom.trim() === '')
    throw new ConfigError(
      'STOREFRONT_MAIL_FROM',
      'is required with SMTP_URL, like "Minha Loja <vendas@minhaloja.com.br>"',
    );
  const parsed = addressparser(rawFrom, { flatten: true });
  const address = parsed.length === 1 ? parsed[0]!.address : '';
  const domain = /^[^@\s]+@([^@\s]+\.[^@\s]+)$/.exec(address)?.[1];
  if (domain === undefined)
    throw new ConfigError(
      'STOREFRONT_MAIL_FROM',
      `must be one address like "Minha Loja <vendas@minhaloja.com.br>", got "${rawFrom}"`,
    );
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    auth,
    from: rawFrom.trim(),
    fromDomain: domain.toLowerCase(),
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function parseLogLevel(raw: string | undefined): string {
  if (raw === undefined || raw === '') return 'info';
  if (!LOG_LEVELS.includes(raw)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  }
  return raw;
}

function parseConnectionLimits(env: Env): ConnectionLimits {
  const limits = {
    maxPerProcess: integerIn(env, 'STOREFRONT_MAX_CONNECTIONS', 10_000, 1, 1_000_000),
    headersTimeoutMs: integerIn(env, 'STOREFRONT_HEADERS_TIMEOUT_MS', 20_000, 100, 600_000),
    requestTimeoutMs: integerIn(env, 'STOREFRONT_REQUEST_TIMEOUT_MS', 30_000, 100, 3_600_000),
    keepAliveTimeoutMs: integerIn(env, 'STOREFRONT_KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000),
  };
  // Node refuses a headers limit longer than the whole request's.
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new ConfigError(
      'STOREFRONT_HEADERS_TIMEOUT_MS',
      `must not be more than STOREFRONT_REQUEST_TIMEOUT_MS (${limits.requestTimeoutMs})`,
    );
  }
  return limits;
}

function parseAllowList(raw: string | undefined): TestMailAllow {
  try {
    return parseTestMailAllow(raw);
  } catch (error) {
    throw new ConfigError('STOREFRONT_TEST_MAIL_ALLOW', (error as Error).message);
  }
}

/** A stream's lifetime: a duration like 10m, from 1 s to a day. */
function parseStreamLifetime(raw: string | undefined): number {
  const name = 'STOREFRONT_SSE_MAX_LIFETIME';
  const ms = parseDuration(name, raw || '10m');
  if (ms < 1000 || ms > 86_400_000) throw new ConfigError(name, `must be between 1s and 24h, got "${raw}"`);
  return ms;
}

export function loadConfig(env: Env = process.env): Config {
  const databaseUrl = parseDatabaseUrl(env.DATABASE_URL || DEFAULT_DATABASE_URL);
  const isSqlite = databaseUrl.startsWith('sqlite:');

  let secret = env.STOREFRONT_SECRET ?? '';
  if (secret === '') {
    if (!isSqlite) throw new ConfigError('STOREFRONT_SECRET', 'is required with PostgreSQL (32+ characters)');
    secret = loadOrCreateSecret(databaseUrl);
  } else if (secret.length < 32) {
    throw new ConfigError('STOREFRONT_SECRET', 'must be at least 32 characters');
  }

  const worker = env.STOREFRONT_WORKER || 'inline';
  if (worker !== 'inline' && worker !== 'off') {
    throw new ConfigError('STOREFRONT_WORKER', `must be "inline" or "off", got "${worker}"`);
  }

  const redisUrl = env.REDIS_URL || null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError('REDIS_URL', `must start with redis:// or rediss://, got "${redisUrl}"`);
  }

  const schedule = (env.STOREFRONT_WEBHOOK_RETRY_SCHEDULE || DEFAULT_RETRY_SCHEDULE)
    .split(',')
    .map((part) => parseDuration('STOREFRONT_WEBHOOK_RETRY_SCHEDULE', part));

  const port = integerIn(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';

  return {
    port,
    host,
    databaseUrl,
    redisUrl,
    secret,
    worker,
    rateLimitPerSecond: integerIn(env, 'STOREFRONT_RATE_LIMIT', 100, 1, 1_000_000),
    webhookRetryScheduleMs: schedule,
    webhookTimeoutMs: integerIn(env, 'STOREFRONT_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookAllowedHosts: parseAllowedHosts(env.STOREFRONT_WEBHOOK_ALLOWED_HOSTS),
    logLevel: parseLogLevel(env.LOG_LEVEL),
    publicUrl: parsePublicUrl(env.STOREFRONT_PUBLIC_URL, host, port),
    pspConnectTimeoutMs: integerIn(env, 'STOREFRONT_PSP_CONNECT_TIMEOUT_MS', 5_000, 100, 60_000),
    pspRequestTimeoutMs: integerIn(env, 'STOREFRONT_PSP_TIMEOUT_MS', 15_000, 100, 120_000),
    pspAllowedHosts: parsePspAllowedHosts(env.STOREFRONT_PSP_ALLOWED_HOSTS),
    pixReconcileScheduleMs: (env.STOREFRONT_PIX_RECONCILE_SCHEDULE || DEFAULT_RECONCILE_SCHEDULE)
      .split(',')
      .map((part) => parseDuration('STOREFRONT_PIX_RECONCILE_SCHEDULE', part)),
    cardReconcileScheduleMs: (env.STOREFRONT_CARD_RECONCILE_SCHEDULE || DEFAULT_RECONCILE_SCHEDULE)
      .split(',')
      .map((part) => parseDuration('STOREFRONT_CARD_RECONCILE_SCHEDULE', part)),
    orderRateLimitPerMinute: integerIn(env, 'STOREFRONT_ORDER_RATE_LIMIT', 20, 1, 1_000_000),
    pixCallbackRateLimitPerMinute: integerIn(env, 'STOREFRONT_PIX_CALLBACK_RATE_LIMIT', 600, 1, 1_000_000),
    metricsToken: parseMetricsToken(env.STOREFRONT_METRICS_TOKEN),
    retentionDays: integerIn(env, 'STOREFRONT_RETENTION_DAYS', 30, 1, MAX_RETENTION_DAYS),
    processes: parseProcesses(env.STOREFRONT_PROCESSES),
    smtp: parseSmtp(env.SMTP_URL, env.STOREFRONT_MAIL_FROM),
    emailRetryScheduleMs: EMAIL_RETRY_SCHEDULE_MS,
    connections: parseConnectionLimits(env),
    authFailureRateLimitPerMinute: integerIn(env, 'STOREFRONT_AUTH_FAILURE_RATE_LIMIT', 30, 1, 1_000_000),
    testMailAllow: parseAllowList(env.STOREFRONT_TEST_MAIL_ALLOW),
    sse: {
      perToken: integerIn(env, 'STOREFRONT_SSE_PER_TOKEN', 5, 1, 1000),
      perIp: integerIn(env, 'STOREFRONT_SSE_PER_IP', 50, 1, 100_000),
      perProcess: integerIn(env, 'STOREFRONT_SSE_PER_PROCESS', 1000, 1, 10_000),
      maxLifetimeMs: parseStreamLifetime(env.STOREFRONT_SSE_MAX_LIFETIME),
    },
    pageViewFlushMs: PAGE_VIEW_FLUSH_MS,
    trustProxy: parseTrustProxy(env.STOREFRONT_TRUST_PROXY),
    meta: {
      apiUrl: parseMetaApiUrl(env.STOREFRONT_META_API_URL),
      ca: readPemFile('STOREFRONT_META_API_CA', env.STOREFRONT_META_API_CA),
      timeoutMs: integerIn(env, 'STOREFRONT_META_API_TIMEOUT_MS', 10_000, 100, 120_000),
      retryScheduleMs: META_RETRY_SCHEDULE_MS,
    },
  };
}

function parsePspAllowedHosts(raw: string | undefined): ReadonlySet<string> {
  const allowed = parseAllowedEndpoints(raw);
  if ('invalid' in allowed) {
    throw new ConfigError(
      'STOREFRONT_PSP_ALLOWED_HOSTS',
      `must be a comma list of host or host:port entries (IPv6 in brackets), got "${allowed.invalid}"`,
    );
  }
  return allowed;
}

/**
 * `STOREFRONT_META_API_URL`: an operator's setting (Meta's Graph API, a proxy, a test fake), so it is
 * trusted where merchants' webhook URLs are not; https only. The version is part of it.
 */
function parseMetaApiUrl(raw: string | undefined): string {
  const name = 'STOREFRONT_META_API_URL';
  if (raw === undefined || raw === '') return DEFAULT_META_API_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an https URL like ${DEFAULT_META_API_URL}, got "${raw}"`);
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash)
    throw new ConfigError(
      name,
      `must be an https URL without credentials or query, like ${DEFAULT_META_API_URL}`,
    );
  return url.href.replace(/\/+$/, '');
}

/** A PEM file named by a variable, read once at start; unset: null. */
function readPemFile(name: string, path: string | undefined): string | null {
  if (path === undefined || path === '') return null;
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(name, `cannot read "${path}": ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new ConfigError(name, `"${path}" holds no PEM certificate`);
  return pem;
}

/**
 * `STOREFRONT_TRUST_PROXY`: `1` (hops) or `127.0.0.1,10.0.0.0/8` (the proxies' addresses). Never
 * "trust everyone": a client could then pick its own IP and dodge the per-IP limits.
 */
function parseTrustProxy(raw: string | undefined): number | string[] | false {
  if (raw === undefined || raw.trim() === '') return false;
  if (/^\d+$/.test(raw.trim())) {
    const hops = Number(raw);
    if (hops < 1 || hops > 10)
      throw new ConfigError('STOREFRONT_TRUST_PROXY', `hops must be 1 to 10, got ${hops}`);
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const valid =
      rest.length === 0 &&
      ipaddr.isValid(address ?? '') &&
      (bits === undefined ||
        (/^\d+$/.test(bits) && Number(bits) <= (ipaddr.parse(address!).kind() === 'ipv4' ? 32 : 128)));
    if (!valid) {
      throw new ConfigError(
        'STOREFRONT_TRUST_PROXY',
        `"${entry}" is not an IP address or CIDR range (give a number of hops, or a comma list of addresses)`,
      );
    }
  }
  return entries;
}
