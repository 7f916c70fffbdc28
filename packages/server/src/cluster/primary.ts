import cluster from 'node:cluster';
import { pino } from 'pino';
import { printDemoKey, printListening, stopOnSignals } from '../cli/serve-lifecycle.js';
import type { Config } from '../config/config.js';
import { startRateLimitPrimary } from '../http/rate-limit.js';
import { prepareDatabase, startHttpProcess, startNodeDuties, warnIfPublicUrlIsPlain } from '../service.js';
import { nodeMetricsFromPrimary, serveNodeMetrics } from './node-metrics.js';
import { receiveNewEventsFromHttpProcesses, relayNewEventsToPrimary } from './new-events-relay.js';
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
  const metrics = config.metricsToken ? nodeMetricsFromPrimary() : null;
  const service = await startHttpProcess(config, metrics ? { renderMetrics: metrics.render } : {});
  const stopRelay = relayNewEventsToPrimary();
  stopOnSignals(service.app.log, async () => {
    await service.close();
    stopRelay();
    metrics?.stop();
  });
}

async function runPrimary(config: Config): Promise<void> {
  const log = pino({ level: config.logLevel });
  // Before any HTTP process exists: migrations and the Demo store happen once, not once per process.
  const { db, demo } = await prepareDatabase(config, log);
  warnIfPublicUrlIsPlain(config, log);
  startRateLimitPrimary(); // the HTTP processes' rate-limit counters live here, so a key's limit is exact
  const stopReceiving = receiveNewEventsFromHttpProcesses();
  const stopMetrics = config.metricsToken ? serveNodeMetrics(db) : null;
  const duties = startNodeDuties({ db: db.kysely, config, log });
  const supervisor = superviseHttpProcesses({ processes: config.processes, log });

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      await supervisor.stop(); // every HTTP process has answered its last request
      stopReceiving();
      stopMetrics?.();
      await duties.stop();
      await db.close();
    })());
  stopOnSignals(log, close);

  try {
    const port = await supervisor.listening;
    const host = config.host.includes(':') ? `[${config.host}]` : config.host;
    log.info({ processes: config.processes, port }, 'serving with several HTTP processes');
    printListening(`http://${host}:${port}`);
    if (demo) printDemoKey(demo, `http://${host}:${port}`);
  } catch (err) {
    log.error({ err }, 'the HTTP processes could not start');
    await close();
    process.exit(1);
  }
}
