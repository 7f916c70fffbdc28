import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { parseAllowedHosts } from '../webhooks/url-policy.js';

/** Everything the service reads from its environment, validated once at start (DESIGN §2). */
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
  /** HTTP processes `serve` runs on one port; more than 1 adds a primary that supervises them. */
  processes: number;
  /** Bearer token of GET /metrics; null: no metrics endpoint (404). */
  metricsToken: string | null;
  /** Events, attempts and other transient records older than this are pruned. */
  retentionDays: number;
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
  mkdirSync(dirname(file), { recursive: true });
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
    logLevel: env.LOG_LEVEL || 'info',
    publicUrl: parsePublicUrl(env.STOREFRONT_PUBLIC_URL, host, port),
    processes: parseProcesses(env.STOREFRONT_PROCESSES),
    metricsToken: parseMetricsToken(env.STOREFRONT_METRICS_TOKEN),
    retentionDays: integerIn(env, 'STOREFRONT_RETENTION_DAYS', 30, 1, MAX_RETENTION_DAYS),
  };
}
