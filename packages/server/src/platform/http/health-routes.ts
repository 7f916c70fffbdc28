import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';

/** A load balancer must hear "not ready" quickly, not wait for the database's own timeouts. */
const READINESS_TIMEOUT_MS = 1500;

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from the database within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Outside the v1 prefix and without auth: for load balancers and orchestrators. */
export async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get('/healthz', { config: { public: true }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    try {
      // The query itself is bounded by the pool's timeouts; its late answer or error is dropped.
      const query = sql`select 1`.execute(app.db);
      query.catch(() => undefined);
      await within(query, READINESS_TIMEOUT_MS);
      return { status: 'ready' };
    } catch (error) {
      request.log.warn({ error: (error as Error).message }, 'readiness check failed');
      return reply.code(503).send({ status: 'unavailable' });
    }
  });
}
