import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { openProcessLog } from '../../platform/config/process-log.js';
import type { BaseLogger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from '../../platform/config/config.js';
import { SERVING, openDatabase } from '../../platform/db/database.js';
import type { Db } from '../../platform/db/database.js';
import { openServingDatabase } from '../../platform/db/migrations/migrate.js';
import type { Database } from '../../platform/db/schema.js';
import { connectRedis } from '../../platform/http/redis-connection.js';
import type { PaymentProviders } from '../../domain/payments/payment-providers.js';
import { openPaymentProviders } from './payment-providers.js';
import { ensureDemoStore } from '../../flows/demo-store.js';
import type { DemoStore } from '../../flows/demo-store.js';
import { startDuties } from './node-duties.js';

export interface RunningService {
  app: FastifyInstance;
  db: Db;
  url: string;
  demo: DemoStore | null;
  close(): Promise<void>;
}

export type ServiceLog = Pick<BaseLogger, 'debug' | 'info' | 'warn' | 'error'>;

export interface NodeDuties {
  /** Stops every duty, letting work in progress finish, before the database is closed. */
  stop(): Promise<void>;
}

/**
 * The background duties that run once per node, however many HTTP processes serve it: `serve`'s own
 * (the Pix expiry and order abandonment sweepers, the idempotency purge, retention) and, with
 * STOREFRONT_WORKER=inline, the worker's (node-duties.ts lists them all). With STOREFRONT_PROCESSES
 * above 1 the primary runs them and the HTTP processes do not; with 1 they run beside the server.
 */
export function startNodeDuties(deps: {
  db: Kysely<Database>;
  payments: PaymentProviders;
  config: Config;
  log: ServiceLog;
}): NodeDuties {
  const { config, log } = deps;
  if (!config.smtp) log.info('SMTP_URL is not set: sales are approved without a delivery e-mail (skipped)');
  // Inline by default; with STOREFRONT_WORKER=off, `storefront worker` runs the worker's duties.
  const duties = startDuties(deps, config.worker === 'inline' ? ['serve', 'worker'] : ['serve']);
  return {
    async stop() {
      await duties.stop(); // in-flight attempts record their result
    },
  };
}

/** Said once per node at start: PSPs and buyers reach the service at this origin. */
export function warnIfPublicUrlIsPlain(config: Config, log: ServiceLog): void {
  if (
    !config.publicUrl.startsWith('https:') &&
    !/^http:\/\/(127\.|localhost|\[::1\])/.test(config.publicUrl)
  ) {
    // Plain http is fine on this machine only.
    log.warn({ publicUrl: config.publicUrl }, 'STOREFRONT_PUBLIC_URL is not https; use https in production');
  }
}

/** Builds the app on an open database and listens; `close` stops it and releases its connections. */
async function listen(
  config: Config,
  db: Db,
  options: {
    logger?: boolean;
    log: ServiceLog;
    payments: PaymentProviders;
    renderMetrics?: () => Promise<string>;
  },
): Promise<{ app: FastifyInstance; url: string; close(): Promise<void> }> {
  const { log, ...appOptions } = options;
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, log) : null;
  const app = await buildApp({ config, db: db.kysely, redis, poolStats: db.poolStats, ...appOptions });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // A busy port must not leave connections open behind the failed start.
    await app.close();
    redis?.disconnect();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    app,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    async close() {
      await app.close(); // stops accepting, lets in-flight requests finish
      redis?.disconnect();
    },
  };
}

/** One process: migrate, the Demo store, the node duties and the HTTP server. What `serve` runs by default. */
export async function startService(
  config: Config,
  options: { logger?: boolean } = {},
): Promise<RunningService> {
  const log = openProcessLog(config.logLevel);
  const db = await openServingDatabase(config.databaseUrl, log);
  const payments = openPaymentProviders(db.kysely, config);
  const http = await listen(config, db, { ...options, log, payments }).catch(async (error: unknown) => {
    await db.close();
    throw error;
  });
  // Only once listening: a start that fails (a busy port) must not create the Demo store and lose its key.
  const demo = await ensureDemoStore(db.kysely);
  warnIfPublicUrlIsPlain(config, http.app.log);
  // Started after listening: a first prune of a large backlog must not delay readiness.
  const duties = startNodeDuties({ db: db.kysely, payments, config, log: http.app.log });
  return {
    app: http.app,
    db,
    demo,
    url: http.url,
    close: once(http.close, duties.stop, payments.close, db.close),
  };
}

/**
 * One of several HTTP processes (STOREFRONT_PROCESSES > 1): the primary has migrated and runs the
 * node duties, so this only serves requests on the database.
 */
export async function startHttpProcess(
  config: Config,
  renderMetrics?: () => Promise<string>,
): Promise<Omit<RunningService, 'demo'>> {
  const log = openProcessLog(config.logLevel);
  const db = openDatabase(config.databaseUrl, { ...SERVING, log });
  const payments = openPaymentProviders(db.kysely, config);
  const http = await listen(config, db, { log, payments, ...(renderMetrics ? { renderMetrics } : {}) });
  return { app: http.app, db, url: http.url, close: once(http.close, payments.close, db.close) };
}

/** Runs the steps in order the first time; later calls get the same promise. */
function once(...steps: Array<() => Promise<void>>): () => Promise<void> {
  let closing: Promise<void> | null = null;
  return () => {
    closing ??= (async () => {
      for (const step of steps) await step();
    })();
    return closing;
  };
}
