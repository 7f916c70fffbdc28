import cluster from 'node:cluster';
import type { Worker } from 'node:cluster';
import { AggregatorRegistry } from 'prom-client';
import { metricsRegistry } from '../../platform/metrics/metrics.js';

/** HTTP process → primary: a scrape arrived, answer it for the node. */
const SCRAPE = 'storefront:metrics:scrape';
const SCRAPED = 'storefront:metrics:scraped';
/** Primary → each HTTP process: send your metrics. */
const COLLECT = 'storefront:metrics:collect';
const COLLECTED = 'storefront:metrics:collected';
const TIMEOUT_MS = 5_000;

/** One process's metrics as prom-client serializes them for aggregation. */
type ProcessMetrics = Awaited<ReturnType<typeof metricsRegistry.getMetricsAsJSON>>;

interface Message {
  type?: string;
  id?: number;
  text?: string;
  metrics?: ProcessMetrics;
  error?: string;
}

/** Sends a request and resolves with the reply of the same id, or rejects after TIMEOUT_MS. */
function requester<T>(send: (message: Message) => void, replyType: string, read: (reply: Message) => T) {
  const pending = new Map<number, { resolve(value: T): void; reject(error: Error): void }>();
  let nextId = 0;
  return {
    ask(type: string): Promise<T> {
      const id = ++nextId;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`no ${replyType} within ${TIMEOUT_MS} ms`));
        }, TIMEOUT_MS);
        pending.set(id, {
          resolve: (value) => (clearTimeout(timer), resolve(value)),
          reject: (error) => (clearTimeout(timer), reject(error)),
        });
        send({ type, id });
      });
    },
    /** Settles the request a reply answers; false when it is not a reply of this kind. */
    receive(message: Message): boolean {
      if (message?.type !== replyType || message.id === undefined) return false;
      const waiting = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) waiting?.reject(new Error(message.error));
      else waiting?.resolve(read(message));
      return true;
    },
  };
}

/**
 * In the primary of several HTTP processes: one scrape answers for the whole node. Whichever HTTP
 * process receives GET /metrics asks here; the primary collects every HTTP process's registry and its
 * own (the node duties run here: deliveries, expiries) and aggregates them with prom-client, each
 * metric by its aggregator (counters and histograms summed, database gauges by max).
 */
export function serveNodeMetrics(): () => void {
  const collectors = new Map<number, ReturnType<typeof requester<ProcessMetrics>>>();
  const collectorOf = (worker: Worker) => {
    let collector = collectors.get(worker.id);
    if (!collector) {
      collector = requester<ProcessMetrics>(
        (m) => worker.send(m),
        COLLECTED,
        (reply) => reply.metrics ?? [],
      );
      collectors.set(worker.id, collector);
    }
    return collector;
  };

  async function nodeMetrics(): Promise<string> {
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && w.isConnected());
    const all = await Promise.all([
      metricsRegistry.getMetricsAsJSON(),
      ...workers.map((worker) => collectorOf(worker).ask(COLLECT)),
    ]);
    return AggregatorRegistry.aggregate(all).metrics();
  }

  const onMessage = (worker: Worker, message: Message) => {
    if (collectors.get(worker.id)?.receive(message)) return;
    if (message?.type !== SCRAPE) return;
    nodeMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: SCRAPED, id: message.id, text }),
      (err: Error) =>
        worker.isConnected() && worker.send({ type: SCRAPED, id: message.id, error: err.message }),
    );
  };
  const onExit = (worker: Worker) => collectors.delete(worker.id);
  cluster.on('message', onMessage);
  cluster.on('exit', onExit);
  return () => {
    cluster.off('message', onMessage);
    cluster.off('exit', onExit);
  };
}

/**
 * In an HTTP process of several: answers the primary's collection with this process's registry, and
 * gives GET /metrics a `render` that asks the primary for the node's aggregated text.
 */
export function nodeMetricsFromPrimary(): { render(): Promise<string>; stop(): void } {
  const scrapes = requester<string>(
    (m) => process.send?.(m),
    SCRAPED,
    (reply) => reply.text ?? '',
  );
  const onMessage = (message: Message) => {
    if (scrapes.receive(message) || message?.type !== COLLECT) return;
    metricsRegistry.getMetricsAsJSON().then(
      (metrics) => process.connected && process.send?.({ type: COLLECTED, id: message.id, metrics }),
      (err: Error) =>
        process.connected && process.send?.({ type: COLLECTED, id: message.id, error: err.message }),
    );
  };
  process.on('message', onMessage);
  return {
    render: () => scrapes.ask(SCRAPE),
    stop: () => process.off('message', onMessage),
  };
}
