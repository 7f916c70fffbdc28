import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import {
  RateLimiterCluster,
  RateLimiterClusterMaster,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { IRateLimiterOptions, RateLimiterAbstract } from 'rate-limiter-flexible';
import { ApiError } from './api-error.js';

export interface RateLimitOptions {
  /** Requests per second per API key; the burst equals the rate. */
  perSecond: number;
  /** Shared counters across nodes when set; in-process otherwise. */
  redis: Redis | null;
}

/** In the primary of STOREFRONT_PROCESSES > 1, before forking: it keeps the HTTP processes' counters. */
export function startRateLimitPrimary(): void {
  new RateLimiterClusterMaster();
}

/**
 * Counters for this node: in memory, or, in an HTTP process of several (node:cluster), in the
 * primary's memory, asked over IPC, so every process of the node draws from one budget per key.
 * Any other limiter of the service should come from here (or `makeLimiter`) to stay exact too.
 */
export function nodeLimiter(options: IRateLimiterOptions & { keyPrefix: string }): RateLimiterAbstract {
  return cluster.isWorker ? new RateLimiterCluster(options) : new RateLimiterMemory(options);
}

/**
 * One-second windows of `perSecond` points per key, from rate-limiter-flexible: the same average
 * rate and burst size as a token bucket of size = rate. With Redis the counters are shared by every
 * node; if Redis fails, this node's own counters take over instead of refusing traffic.
 */
function makeLimiter({ perSecond, redis }: RateLimitOptions): RateLimiterAbstract {
  const common = { points: perSecond, duration: 1, keyPrefix: 'storefront:rl' };
  if (!redis) return nodeLimiter(common);
  return new RateLimiterRedis({ ...common, storeClient: redis, insuranceLimiter: nodeLimiter(common) });
}

export const rateLimitPlugin = fp<RateLimitOptions>(async (app: FastifyInstance, options) => {
  const limiter = makeLimiter(options);
  const limit = String(options.perSecond);

  app.addHook('onRequest', async (request, reply) => {
    if (!request.auth) return; // public routes and 404s carry no key
    let result: RateLimiterRes;
    try {
      result = await limiter.consume(request.auth.keyId);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const retryAfter = String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      throw new ApiError(429, 'rate_limited', `Too many requests. Retry after ${retryAfter} s.`, null, {
        'Retry-After': retryAfter,
        'RateLimit-Limit': limit,
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': retryAfter,
      });
    }
    reply.headers({
      'RateLimit-Limit': limit,
      'RateLimit-Remaining': String(result.remainingPoints),
      'RateLimit-Reset': String(Math.max(1, Math.ceil(result.msBeforeNext / 1000))),
    });
  });
});
