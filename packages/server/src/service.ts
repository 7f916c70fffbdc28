import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { buildApp } from './app.js';
import type { Config } from './config/config.js';
import { openDatabase } from './db/database.js';
import type { Db } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { purgeExpiredIdempotencyKeys } from './http/idempotency.js';
import { startExpirySweeper } from './pix/expiry-sweeper.js';
import { ensureDemoStore } from './stores/demo-store.js';
import { startDeliveryWorker } from './webhooks/delivery/worker.js';

export interface RunningService {
  app: FastifyInstance;
  db: Db;
  url: string;
  demo: { storeId: string; key: string; pagePath: string } | null;
  close(): Promise<void>;
}

const MAINTENANCE_INTERVAL_MS = 60 * 60 * 1000;

/** Opens the database, migrates, builds the app and listens: what `storefront serve` runs. */
export async function startService(
  config: Config,
  options: { logger?: boolean } = {},
): Promise<RunningService> {
  const db = openDatabase(config.databaseUrl);
  await migrateToLatest(db.kysely);
  const demo = await ensureDemoStore(db.kysely);
  const redis = config.redisUrl ? new Redis(config.redisUrl, { enableOfflineQueue: false }) : null;
  const app = await buildApp({ config, db: db.kysely, redis, ...options });
  if (
    !config.publicUrl.startsWith('https:') &&
    !/^http:\/\/(127\.|localhost|\[::1\])/.test(config.publicUrl)
  ) {
    // PSPs and buyers reach the service at this origin: plain http is fine on this machine only.
    app.log.warn(
      { publicUrl: config.publicUrl },
      'STOREFRONT_PUBLIC_URL is not https; use https in production',
    );
  }
  const maintenance = setInterval(() => {
    purgeExpiredIdempotencyKeys(db.kysely).catch((err) => app.log.warn({ err }, 'idempotency purge failed'));
  }, MAINTENANCE_INTERVAL_MS).unref();
  const pixExpiry = startExpirySweeper(db.kysely, (err) => app.log.warn({ err }, 'pix expiry sweep failed'));
  // Inline by default; with STOREFRONT_WORKER=off, `storefront worker` delivers from another process.
  const worker =
    config.worker === 'inline' ? startDeliveryWorker({ db: db.kysely, config, log: app.log }) : null;
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;

  let closing: Promise<void> | null = null;
  return {
    app,
    db,
    demo,
    url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`,
    close() {
      // Stop accepting, let in-flight requests finish, then release the connections.
      closing ??= (async () => {
        clearInterval(maintenance);
        await pixExpiry.stop();
        await app.close();
        await worker?.stop(); // before the database closes: in-flight attempts record their result
        redis?.disconnect();
        await db.close();
      })();
      return closing;
    },
  };
}
