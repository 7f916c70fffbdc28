import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createApiKey } from '../../src/platform/api-keys/api-keys.js';
import type { KeyMode } from '../../src/platform/api-keys/api-keys.js';
import { SCOPES } from '../../src/platform/api-keys/scopes.js';
import type { Scope } from '../../src/platform/api-keys/scopes.js';
import { buildApp } from '../../src/channels/server/app.js';
import { loadConfig } from '../../src/platform/config/config.js';
import type { Config } from '../../src/platform/config/config.js';
import type { DialectName } from '../../src/platform/db/database.js';
import type { Database } from '../../src/platform/db/schema.js';
import { createStore } from '../../src/flows/create-store.js';
import type { PaymentProviders } from '../../src/domain/payments/payment-providers.js';
import { logLinesStream } from './log-lines.js';
import { contractOf } from './contract.js';
import { POSTGRES_URL, createTestDatabase } from './test-databases.js';
import type { TestDatabase } from './test-databases.js';

export const TEST_SECRET = 'test-secret-test-secret-test-secret-0123456789';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is, for malformed bodies. */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface TestApiOptions {
  config?: Partial<Config>;
  authCacheTtlMs?: number;
  redis?: Redis | null;
  /** Collects the service's log lines (info and above) here; without it the service logs nothing. */
  logLines?: Record<string, unknown>[];
  /** Extra TLS trust for e-mail the app sends itself (a test SMTP server's CA). */
  mailerTls?: { ca: string };
}

/** A running service on its own database, driven over real HTTP on 127.0.0.1. */
export class TestApi {
  app!: FastifyInstance;
  database!: TestDatabase;
  baseUrl = '';

  constructor(
    readonly dialect: DialectName,
    private readonly options: TestApiOptions = {},
  ) {}

  get db(): Kysely<Database> {
    return this.database.db.kysely;
  }

  get config(): Config {
    return this.app.config;
  }

  /** The app's payment providers, for flows a test calls directly. */
  get payments(): PaymentProviders {
    return this.app.payments;
  }

  async start(): Promise<void> {
    await this.startOn(await createTestDatabase(this.dialect));
  }

  /** An app on `database`; for a second node of one deployment, close its `app` only (`stop` drops the database). */
  async startOn(database: TestDatabase): Promise<void> {
    this.database = database;
    const config: Config = {
      ...loadConfig({
        DATABASE_URL: this.database.url,
        STOREFRONT_SECRET: TEST_SECRET,
        STOREFRONT_RATE_LIMIT: '100000',
        STOREFRONT_AUTH_FAILURE_RATE_LIMIT: '100000',
        // The tests' fetch keeps idle sockets 4 s; a server closing them first (5 s by default) races
        // a request sent on one just then (ECONNRESET) when a loaded machine delays the client's timer.
        STOREFRONT_KEEP_ALIVE_TIMEOUT_MS: '60000',
      }),
      ...this.options.config,
    };
    this.app = await buildApp({
      config,
      db: this.db,
      redis: this.options.redis ?? null,
      poolStats: this.database.db.poolStats,
      logger: this.options.logLines
        ? { level: 'info', stream: logLinesStream(this.options.logLines) }
        : false,
      ...(this.options.mailerTls ? { mailerTls: this.options.mailerTls } : {}),
      ...(this.options.authCacheTtlMs === undefined ? {} : { authCacheTtlMs: this.options.authCacheTtlMs }),
    });
    await this.app.listen({ port: 0, host: '127.0.0.1' });
    const address = this.app.server.address();
    if (typeof address !== 'object' || !address) throw new Error('not listening');
    this.baseUrl = `http://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    await this.app?.close();
    await this.database?.drop();
  }

  /** How many rows `table` holds now (to show a refused request wrote nothing). */
  async count(table: keyof Database): Promise<number> {
    const row = await this.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A new store and a key on it (every scope unless told otherwise). */
  async createStore(
    input: { name?: string; scopes?: Scope[]; mode?: KeyMode } = {},
  ): Promise<{ storeId: string; defaultCheckoutId: string; key: string }> {
    const store = await createStore(this.db, { name: input.name ?? 'Test store' });
    const key = await this.createKey(store.id, input.scopes, input.mode);
    return { storeId: store.id, defaultCheckoutId: store.default_checkout_id, key };
  }

  /**
   * A store's rows of `table` (their `column`) in the order its listings give them: newest first by
   * (created_at, id). Rows made in the same millisecond fall back to the id, in the database's own
   * collation, so a test expects this order rather than the reverse of the order it made them in.
   */
  async newestFirst(
    table: 'products' | 'pix_charges' | 'sales' | 'checkouts',
    storeId: string,
    column: 'id' | 'pix_charge_id' = 'id',
  ): Promise<string[]> {
    const rows = await (
      this.db as unknown as Kysely<Record<string, { id: string; store_id: string; created_at: string }>>
    )
      .selectFrom(table)
      .select(sql<string>`${sql.ref(column)}`.as('value'))
      .where('store_id', '=', storeId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map((row) => row.value);
  }

  async createKey(storeId: string, scopes: Scope[] = [...SCOPES], mode: KeyMode = 'test'): Promise<string> {
    return (await createApiKey(this.db, { storeId, mode, scopes })).key;
  }

  /** `path` is relative to /api/public/v1 unless it starts with `//` (then it is the server root). */
  async request<T = any>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const url = path.startsWith('//')
      ? `${this.baseUrl}${path.slice(1)}`
      : `${this.baseUrl}/api/public/v1${path}`;
    const headers: Record<string, string> = { ...options.headers };
    if (options.key) headers.authorization = `Bearer ${options.key}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    const result = { status: response.status, headers: response.headers, body: parsed as T, text };
    // Contract: every response must be one the OpenAPI description documents (status, body schema).
    contractOf(this.app).check(method, url, result);
    return result;
  }

  /** Shorthand bound to one key. */
  as(key: string) {
    const call =
      (method: string) =>
      <T = any>(path: string, body?: unknown, headers?: Record<string, string>) =>
        this.request<T>(method, path, { key, body, ...(headers ? { headers } : {}) });
    return { get: call('GET'), post: call('POST'), patch: call('PATCH'), delete: call('DELETE') };
  }
}

/**
 * Runs a suite against SQLite always and against PostgreSQL when STOREFRONT_TEST_DATABASE_URL is set;
 * without it the PostgreSQL run shows as skipped, with the reason in its name.
 */
export function describeEachDatabase(
  title: string,
  suite: (api: TestApi) => void,
  /** The same for both runs, or each run's own (a Redis of its own, say). */
  options: TestApiOptions | ((dialect: DialectName) => TestApiOptions) = {},
): void {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    if (dialect === 'postgres' && !POSTGRES_URL) {
      describe.skip(`${title} [postgres]`, () => {
        it('skipped: STOREFRONT_TEST_DATABASE_URL is not set, so PostgreSQL is not tested here', () => {});
      });
      continue;
    }
    describe(`${title} [${dialect}]`, () => {
      const api = new TestApi(dialect, typeof options === 'function' ? options(dialect) : options);
      beforeAll(() => api.start());
      afterAll(() => api.stop());
      suite(api);
    });
  }
}

/** Asserts the documented error envelope and returns it. */
export function expectError(
  response: ApiResponse,
  status: number,
  code: string,
  param?: string | null,
): { code: string; message: string; param: string | null; request_id: string } {
  const error = response.body?.error;
  const context = `${response.status} ${response.text}`;
  if (response.status !== status) throw new Error(`expected ${status} ${code}, got ${context}`);
  if (!error || error.code !== code) throw new Error(`expected code ${code}, got ${context}`);
  if (typeof error.message !== 'string' || error.message.length === 0)
    throw new Error(`no message: ${context}`);
  if (error.request_id !== response.headers.get('request-id'))
    throw new Error(`request_id mismatch: ${context}`);
  if (param !== undefined && error.param !== param)
    throw new Error(`expected param ${param}, got ${context}`);
  return error;
}
