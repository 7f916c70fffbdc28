import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Every metric of this process, in one module-level registry: counters belong to the process, not to
 * one app instance, so a process running several HTTP workers can aggregate them per node
 * (prom-client's AggregatorRegistry; see docs/operations.md). Incrementing a counter is a few object
 * lookups: the call sites need no guard when metrics are off.
 *
 * Aggregation across processes: counters and histograms are summed; gauges that read the shared
 * database say `max` (every process reads the same value), per-process gauges are summed.
 */
export const metricsRegistry = new Registry();

const http = new Histogram({
  name: 'storefront_http_request_duration_seconds',
  help: 'HTTP requests by method, route pattern and status: count and latency.',
  labelNames: ['method', 'route', 'status_code'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

/** Called once per completed request. `route` is the pattern (`/api/public/v1/products/:id`), never the URL. */
export function observeHttpRequest(
  method: string,
  route: string | undefined,
  status: number,
  ms: number,
): void {
  http.observe({ method, route: route ?? 'unmatched', status_code: status }, ms / 1000);
}

const deliveries = new Counter({
  name: 'storefront_webhook_deliveries_total',
  help: 'Webhook delivery attempts by outcome: delivered, retrying (failed, retry scheduled), failed (no retry left).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed';
export function countDelivery(outcome: DeliveryOutcome): void {
  deliveries.inc({ outcome });
}

const pixCharges = new Counter({
  name: 'storefront_pix_charges_total',
  help: 'Pix charges by outcome (created, paid, expired, canceled) and mode (test, live).',
  labelNames: ['outcome', 'mode'] as const,
  registers: [metricsRegistry],
});

export type PixChargeOutcome = 'created' | 'paid' | 'expired' | 'canceled';
/** Call after the change committed. */
export function countPixCharge(outcome: PixChargeOutcome, livemode: boolean | number): void {
  pixCharges.inc({ outcome, mode: livemode ? 'live' : 'test' });
}

const cardPayments = new Counter({
  name: 'storefront_card_payments_total',
  help: 'Card payments by provider and outcome: approved, declined, requires_action, processing, refunded, charged_back.',
  labelNames: ['provider', 'outcome'] as const,
  registers: [metricsRegistry],
});

/** Call after the change committed. */
export function countCardPayment(provider: string, outcome: string): void {
  cardPayments.inc({ provider, outcome });
}

const emails = new Counter({
  name: 'storefront_emails_total',
  help: 'Delivery e-mails by outcome: sent, retrying (temporary failure), failed (given up), skipped (no SMTP).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export type EmailOutcome = 'sent' | 'retrying' | 'failed' | 'skipped';
export function countEmail(outcome: EmailOutcome): void {
  emails.inc({ outcome });
}

const conversions = new Counter({
  name: 'storefront_conversion_events_total',
  help: 'Meta conversion events by kind (InitiateCheckout, Purchase) and outcome: sent, retrying (temporary failure, retry scheduled), failed (refused by Meta or out of retries), skipped (nothing to send any more).',
  labelNames: ['kind', 'outcome'] as const,
  registers: [metricsRegistry],
});

export type ConversionOutcome = 'sent' | 'retrying' | 'failed' | 'skipped';
export function countConversion(kind: string, outcome: ConversionOutcome): void {
  conversions.inc({ kind, outcome });
}

const dbStatements = new Counter({
  name: 'storefront_db_statements_total',
  help: 'SQL statements this process sent to the database (transaction begin and commit included).',
  registers: [metricsRegistry],
});

/** Called by the database layer for every statement it runs (database.ts). */
export function countDbStatement(): void {
  dbStatements.inc();
}

/** What the scrape-time gauges read; attached by `watchProcess` (metrics-plugin.ts). */
export interface ScrapeSources {
  /** Queue depth, the oldest due job and the outbox backlog: three small queries on the shared database. */
  webhookQueue(): Promise<{ jobs: number; oldestDueAgeSeconds: number; undispatchedEvents: number }>;
  /** PostgreSQL pool counters; null on SQLite (one connection, no pool). */
  pool(): { size: number; inUse: number; waiting: number } | null;
}

let sources: ScrapeSources | null = null;

/** Points the scrape-time gauges at a database; the returned function detaches it again. */
export function attachScrapeSources(next: ScrapeSources): () => void {
  sources = next;
  return () => {
    if (sources === next) sources = null;
  };
}

interface Snapshot {
  queue: Awaited<ReturnType<ScrapeSources['webhookQueue']>> | null;
  pool: ReturnType<ScrapeSources['pool']>;
}

/** One database read per scrape, shared by the gauges below (prom-client collects them all at once). */
let reading: Promise<Snapshot> | null = null;
function snapshot(): Promise<Snapshot> {
  reading ??= (async () => {
    try {
      if (!sources) return { queue: null, pool: null };
      // A database that does not answer makes the queue gauges NaN (unknown) instead of failing the
      // scrape: the process and request metrics matter most during an outage.
      const queue = await sources.webhookQueue().catch(() => null);
      return { queue, pool: sources.pool() };
    } finally {
      reading = null;
    }
  })();
  return reading;
}

/** A gauge read fresh at scrape time from the snapshot. */
function scrapeGauge<L extends string>(
  name: string,
  help: string,
  aggregator: 'max' | 'sum',
  read: (gauge: Gauge<L>, snap: Snapshot) => void,
  labelNames: readonly L[] = [],
): void {
  new Gauge<L>({
    name,
    help,
    labelNames,
    aggregator,
    registers: [metricsRegistry],
    async collect() {
      read(this, await snapshot());
    },
  });
}

/** The webhook queue's gauges: one field of the queue reading each, NaN while it cannot be read. */
const QUEUE_GAUGES: ReadonlyArray<[name: string, help: string, field: keyof NonNullable<Snapshot['queue']>]> =
  [
    [
      'storefront_webhook_queue_jobs',
      'Webhook deliveries queued (due, waiting for a retry, or being sent).',
      'jobs',
    ],
    [
      'storefront_webhook_queue_oldest_due_age_seconds',
      'How long the oldest due webhook delivery has been waiting; 0 when none is due.',
      'oldestDueAgeSeconds',
    ],
    [
      'storefront_events_undispatched',
      'Events recorded but not yet handed to the webhook queue.',
      'undispatchedEvents',
    ],
  ];
for (const [name, help, field] of QUEUE_GAUGES) {
  scrapeGauge(name, help, 'max', (g, s) => {
    g.set(s.queue ? s.queue[field] : NaN);
  });
}
scrapeGauge(
  'storefront_db_pool_connections',
  'PostgreSQL pool connections by state: in_use, waiting (queries queued for one), max (pool size).',
  'sum',
  (g, s) => {
    // No pool now (SQLite, or the sources detached): no series, rather than the last pool's figures.
    if (!s.pool) return g.reset();
    g.set({ state: 'in_use' }, s.pool.inUse);
    g.set({ state: 'waiting' }, s.pool.waiting);
    g.set({ state: 'max' }, s.pool.size);
  },
  ['state'],
);

let defaultsCollected = false;
/** Process metrics (CPU, memory, event loop, GC), once per process, only when metrics are served. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: metricsRegistry });
}
