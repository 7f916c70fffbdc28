import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';
import type { Db } from '../db/database.js';
import { attachScrapeSources, collectProcessMetrics, metricsRegistry } from '../operations/metrics.js';
import { webhookQueueStats } from '../webhooks/delivery/queue-stats.js';

/** An HTTP process asks the primary for the node's text; the primary asks each process for its own. */
const NODE_REQUEST = 'storefront:metrics:node-request';
const NODE_ANSWER = 'storefront:metrics:node-answer';
const PROCESS_REQUEST = 'storefront:metrics:process-request';
const PROCESS_ANSWER = 'storefront:metrics:process-answer';
/** A process that does not answer within this (dying, still starting) is left out of that scrape. */
const PROCESS_ANSWER_MS = 2000;
/** An HTTP process gives up on the primary after this: the scrape fails rather than hangs. */
const NODE_ANSWER_MS = 5000;

type ProcessMetrics = MetricObjectWithValues<MetricValue<string>>[];
interface Message {
  type?: unknown;
  id?: unknown;
  metrics?: ProcessMetrics;
  text?: string;
  error?: string;
}

/**
 * In the primary of STOREFRONT_PROCESSES > 1, when metrics are on: one scrape of any HTTP process
 * answers for the whole node. The primary's own registry (the delivery worker's and the sweepers'
 * counters, its pool) and every HTTP process's are merged by prom-client's AggregatorRegistry, each
 * metric with its declared aggregator (counters and histograms summed, database gauges `max`).
 */
export function serveNodeMetrics(db: Db): () => void {
  collectProcessMetrics();
  const detach = attachScrapeSources({
    webhookQueue: () => webhookQueueStats(db.kysely),
    pool: db.poolStats,
  });
  let nextId = 0;
  const pending = new Map<number, (metrics: ProcessMetrics | null) => void>();

  function askProcess(worker: Worker): Promise<ProcessMetrics | null> {
    const id = nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => answered(null), PROCESS_ANSWER_MS);
      const answered = (metrics: ProcessMetrics | null) => {
        clearTimeout(timer);
        pending.delete(id);
        resolve(metrics);
      };
      pending.set(id, answered);
      worker.send({ type: PROCESS_REQUEST, id });
    });
  }

  async function nodeText(): Promise<string> {
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w?.isConnected());
    const all = await Promise.all([metricsRegistry.getMetricsAsJSON(), ...workers.map(askProcess)]);
    return AggregatorRegistry.aggregate(all.filter((m): m is ProcessMetrics => m !== null)).metrics();
  }

  const onMessage = (worker: Worker, message: Message) => {
    if (message?.type === PROCESS_ANSWER) pending.get(Number(message.id))?.(message.metrics ?? null);
    if (message?.type !== NODE_REQUEST) return;
    nodeText().then(
      (text) => worker.isConnected() && worker.send({ type: NODE_ANSWER, id: message.id, text }),
      (error: Error) =>
        worker.isConnected() && worker.send({ type: NODE_ANSWER, id: message.id, error: error.message }),
    );
  };
  cluster.on('message', onMessage);
  return () => {
    cluster.off('message', onMessage);
    detach();
  };
}

/**
 * In an HTTP process of several: answers the primary with this process's metrics, and returns the
 * `renderMetrics` for its app, which asks the primary for the whole node's.
 */
export function nodeMetricsFromPrimary(): { render: () => Promise<string>; stop: () => void } {
  let nextId = 0;
  const pending = new Map<number, (message: Message) => void>();
  const onMessage = (message: Message) => {
    if (message?.type === NODE_ANSWER) pending.get(Number(message.id))?.(message);
    if (message?.type !== PROCESS_REQUEST) return;
    metricsRegistry.getMetricsAsJSON().then((metrics) => {
      if (process.connected) process.send?.({ type: PROCESS_ANSWER, id: message.id, metrics });
    });
  };
  process.on('message', onMessage);

  function render(): Promise<string> {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => settle({ error: 'the primary did not answer' }), NODE_ANSWER_MS);
      const settle = (message: Message) => {
        clearTimeout(timer);
        pending.delete(id);
        if (message.text !== undefined) resolve(message.text);
        else reject(new Error(`node metrics: ${message.error}`));
      };
      pending.set(id, settle);
      process.send?.({ type: NODE_REQUEST, id });
    });
  }
  return { render, stop: () => process.off('message', onMessage) };
}
