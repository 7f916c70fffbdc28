import cluster from 'node:cluster';
import { openProcessLog } from '../../platform/config/process-log.js';
import {
  exitIfCannotStart,
  printDemoKey,
  printListening,
  shutdownDeadlineMs,
  stopOnSignals,
} from '../server/serve-lifecycle.js';
import type { Config } from '../../platform/config/config.js';
import { startRateLimitPrimary } from '../../platform/http/rate-limit.js';
import { openServingDatabase } from '../../platform/db/migrations/migrate.js';
import { watchProcess } from '../api/metrics-routes.js';
import { startHttpProcess, startNodeDuties, warnIfPublicUrlIsPlain } from '../server/service.js';
import { openPaymentProviders } from '../server/payment-providers.js';
import { ensureDemoStore } from '../../flows/demo-store.js';
import { receiveNewEventsFromHttpProcesses, relayNewEventsToPrimary } from './new-events-relay.js';
import { nodeMetricsFromPrimary, serveNodeMetrics } from './node-metrics.js';
import { superviseHttpProcesses } from './supervisor.js';

/**
 * `serve` with STOREFRONT_PROCESSES > 1. The command runs twice over: once as the primary, which
 * prepares the database, runs the node duties and supervises; and in each forked HTTP process,
 * which only serves requests on the port they share.
 */
export function serveWithProcesses(config: Config): Promise<void> {
  return cluster.isPrimary ? runPrimary(config) : runHttpProcess(config);
}

async function runHttpProcess(config: Config): Promise<void> {
  const nodeMetrics = config.metricsToken ? nodeMetricsFromPrimary() : null;
  const service = await exitIfCannotStart(config, () => startHttpProcess(config, nodeMetrics?.render));
  const stopRelay = relayNewEventsToPrimary();
  stopOnSignals(
    service.app.log,
    async () => {
      await service.close();
      stopRelay();
      nodeMetrics?.stop();
    },
    shutdownDeadlineMs(config),
  );
}

async function runPrimary(config: Config): Promise<void> {
  const log = openProcessLog(config.logLevel);
  // Before any HTTP process exists: migrations happen once, not once per process.
  const db = await exitIfCannotStart(config, () => openServingDatabase(config.databaseUrl, log));
  warnIfPublicUrlIsPlain(config, log);
  startRateLimitPrimary(); // the HTTP processes' rate-limit counters live here, so a key's limit is exact
  const stopReceiving = receiveNewEventsFromHttpProcesses();
  // One scrape answers for the node: the HTTP processes ask here, the primary adds its own duties' metrics.
  const stopMetrics = config.metricsToken ? [serveNodeMetrics(), watchProcess(db.kysely, db.poolStats)] : [];
  const payments = openPaymentProviders(db.kysely, config);
  const duties = startNodeDuties({ db: db.kysely, payments, config, log });
  const supervisor = superviseHttpProcesses({ processes: config.processes, log });

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      await supervisor.stop(); // every HTTP process has answered its last request
      stopReceiving();
      for (const stop of stopMetrics) stop();
      await duties.stop();
      await payments.close();
      await db.close();
    })());
  stopOnSignals(log, close, shutdownDeadlineMs(config));

  const port = await supervisor.listening.catch(async (err: unknown) => {
    log.error({ err }, 'the HTTP processes could not start');
    await close();
    return process.exit(1);
  });
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  log.info({ processes: config.processes, port }, 'serving with several HTTP processes');
  printListening(url);
  // Only once listening: a start that fails (a busy port) must not create the Demo store and lose its key.
  const demo = await ensureDemoStore(db.kysely);
  if (demo) printDemoKey(demo, url);
}
