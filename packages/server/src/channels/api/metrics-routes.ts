import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import fp from 'fastify-plugin';
import type { PoolStats } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/schema.js';
import { ApiError } from '../../platform/http/api-error.js';
import { webhookQueueStats } from '../../domain/webhooks/delivery/queue-stats.js';
import {
  attachScrapeSources,
  collectProcessMetrics,
  metricsRegistry,
  observeHttpRequest,
} from '../../platform/metrics/metrics.js';

export interface MetricsOptions {
  /** STOREFRONT_METRICS_TOKEN: the scraper sends `Authorization: Bearer <token>`. */
  token: string;
  poolStats?: () => PoolStats | null;
  /**
   * The exposition text; by default this process's registry. A node running several HTTP processes
   * passes one that answers for the whole node (aggregated by its primary).
   */
  render?: () => Promise<string>;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/**
 * `GET /metrics` in Prometheus text format, at the service root, with its own bearer token (not an
 * API key), and the request histogram fed by every route. Registered only when the token is
 * configured: otherwise the path is an ordinary 404 and requests pay nothing.
 */
/**
 * This process's metrics from here on: process metrics, and the scrape-time gauges read from this
 * database. Returns the function that detaches the database again.
 */
export function watchProcess(
  db: Kysely<Database>,
  poolStats: () => PoolStats | null = () => null,
): () => void {
  collectProcessMetrics();
  return attachScrapeSources({ webhookQueue: () => webhookQueueStats(db), pool: poolStats });
}

export const metricsPlugin = fp(async (app: FastifyInstance, options: MetricsOptions): Promise<void> => {
  // A callback hook, not an async one: one histogram observation and no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    observeHttpRequest(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime);
    done();
  });
  const detach = watchProcess(app.db, options.poolStats);
  app.addHook('onClose', async () => detach());
  const expected = digest(options.token);
  const render = options.render ?? (() => metricsRegistry.metrics());

  /** Digests of equal length, compared in constant time: neither the token nor its length leaks. */
  function authorized(request: FastifyRequest): boolean {
    const match = /^Bearer +(\S+)$/i.exec(request.headers.authorization ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  }

  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    if (!authorized(request)) {
      throw new ApiError(
        401,
        'unauthorized',
        'GET /metrics needs Authorization: Bearer <STOREFRONT_METRICS_TOKEN>.',
        null,
        {
          'WWW-Authenticate': 'Bearer realm="storefront-metrics"',
        },
      );
    }
    const text = await render();
    return reply.type(metricsRegistry.contentType).send(text);
  });
});
