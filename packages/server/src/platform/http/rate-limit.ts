import cluster from 'node:cluster';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
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
 * Any other limiter of the service should come from here to stay exact across the processes too.
 */
export function nodeLimiter(options: IRateLimiterOptions & { keyPrefix: string }): RateLimiterAbstract {
  return cluster.isWorker ? new RateLimiterCluster(options) : new RateLimiterMemory(options);
}

/** While Redis is away, how often it is asked again whether it answers. */
const REDIS_PROBE_MS = 1000;

/** What the service needs of a limiter: rate-limiter-flexible's `consume`, and `get` to look without counting. */
export interface Limiter {
  consume(key: string): Promise<RateLimiterRes>;
  /** The key's current window, or null when it has none. */
  get(key: string): Promise<RateLimiterRes | null>;
  /** Gives one point back (an attempt taken first that turned out right). */
  reward(key: string): Promise<void>;
}

/**
 * Counters in Redis, shared by every node, with an in-process limiter standing in while Redis fails
 * or stalls: a refusal is only ever a real one (a RateLimiterRes), never Redis being slow. The first
 * failure switches every request to the in-process counters at once (one warning); a PING each
 * second finds Redis again and switches back (one info line). Meanwhile limits hold per node.
 */
function failoverLimiter(
  shared: RateLimiterRedis,
  local: RateLimiterAbstract,
  redis: Redis,
  log: FastifyBaseLogger,
): Limiter & { close(): void } {
  let probe: NodeJS.Timeout | null = null;

  function fallBack(error: unknown): void {
    if (probe) return;
    log.warn(
      { error: (error as Error).message },
      'Redis unavailable; rate limits are counted per process until it answers again',
    );
    probe = setInterval(() => {
      redis.ping().then(
        () => {
          if (!probe) return;
          clearInterval(probe);
          probe = null;
          log.info('Redis answers again; rate limits are shared again');
        },
        () => undefined,
      );
    }, REDIS_PROBE_MS).unref();
  }

  return {
    async consume(key) {
      if (!probe) {
        try {
          return await shared.consume(key);
        } catch (outcome) {
          if (outcome instanceof RateLimiterRes) throw outcome;
          fallBack(outcome);
        }
      }
      return local.consume(key);
    },
    async get(key) {
      if (!probe) {
        try {
          return await shared.get(key);
        } catch (error) {
          fallBack(error);
        }
      }
      return local.get(key);
    },
    async reward(key) {
      if (!probe) {
        try {
          await shared.reward(key, 1);
          return;
        } catch (error) {
          fallBack(error);
        }
      }
      await local.reward(key, 1);
    },
    close() {
      if (probe) clearInterval(probe);
    },
  };
}

/**
 * A limiter of `points` per `duration` seconds per key for this service: shared through Redis when
 * configured (falling back to this node's counters while it fails), else this node's counters (exact
 * across its HTTP processes). Every limiter of the service comes from here.
 */
export function serviceLimiter(
  common: { points: number; duration: number; keyPrefix: string },
  redis: Redis | null,
  log: FastifyBaseLogger,
): Limiter & { close(): void } {
  const local = nodeLimiter(common);
  if (!redis)
    return {
      consume: (key) => local.consume(key),
      get: (key) => local.get(key),
      reward: async (key) => void (await local.reward(key, 1)),
      close: () => undefined,
    };
  // Not ready (disconnected, reconnecting): straight to the in-process counters, no waiting.
  const shared = new RateLimiterRedis({ ...common, storeClient: redis, rejectIfRedisNotReady: true });
  return failoverLimiter(shared, local, redis, log);
}

/**
 * One-second windows of `perSecond` points per key, from rate-limiter-flexible: the same average
 * rate and burst size as a token bucket of size = rate.
 */
function makeLimiter(
  { perSecond, redis }: RateLimitOptions,
  log: FastifyBaseLogger,
): Limiter & { close(): void } {
  return serviceLimiter({ points: perSecond, duration: 1, keyPrefix: 'storefront:rl' }, redis, log);
}

/** The 429 of every API limit: `Retry-After` in whole seconds and the `RateLimit-*` headers. */
export function rateLimited(what: string, limit: number, msBeforeNext: number): ApiError {
  const retryAfter = String(Math.max(1, Math.ceil(msBeforeNext / 1000)));
  return new ApiError(429, 'rate_limited', `${what} Retry after ${retryAfter} s.`, null, {
    'Retry-After': retryAfter,
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': '0',
    'RateLimit-Reset': retryAfter,
  });
}

export const rateLimitPlugin = fp<RateLimitOptions>(async (app: FastifyInstance, options) => {
  const limiter = makeLimiter(options, app.log);
  app.addHook('onClose', async () => limiter.close());
  const limit = String(options.perSecond);

  app.addHook('onRequest', async (request, reply) => {
    if (!request.auth) return; // public routes and 404s carry no key
    let result: RateLimiterRes;
    try {
      result = await limiter.consume(request.auth.keyId);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw rateLimited('Too many requests.', options.perSecond, rejection.msBeforeNext);
    }
    reply.headers({
      'RateLimit-Limit': limit,
      'RateLimit-Remaining': String(result.remainingPoints),
      'RateLimit-Reset': String(Math.max(1, Math.ceil(result.msBeforeNext / 1000))),
    });
  });
});
