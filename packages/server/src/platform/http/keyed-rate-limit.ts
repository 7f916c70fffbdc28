import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { serviceLimiter } from './rate-limit.js';

export interface KeyedRateLimit {
  /** Resolves null when allowed, else the seconds to wait. */
  consume(...key: string[]): Promise<number | null>;
  close(): void;
}

/**
 * `perMinute` requests a minute per key (e.g. IP and store), each `bucket` counted on its own, with
 * the service's own limiter (shared through Redis when configured): one visitor cannot flood a store
 * with charges, nor guess its coupon codes, nor a PSP callback token fill the database.
 */
export function keyedRateLimit(
  bucket: string,
  perMinute: number,
  redis: Redis | null,
  log: FastifyBaseLogger,
): KeyedRateLimit {
  const limiter = serviceLimiter(
    { points: perMinute, duration: 60, keyPrefix: `storefront:${bucket}` },
    redis,
    log,
  );
  return {
    async consume(...key) {
      try {
        await limiter.consume(key.join('|'));
        return null;
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      }
    },
    close: () => limiter.close(),
  };
}
