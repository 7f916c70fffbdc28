import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { rateLimited, serviceLimiter } from './rate-limit.js';

/**
 * Failed authentications per client IP, `perMinute` in a one-minute window, counted like every other
 * limit of the service (Redis when configured, else this node). Past it, that address gets 429 for
 * the rest of the window, before a key it presents costs a database lookup.
 */
export interface AuthFailureLimit {
  /** 429 when `ip` has used up its failures; asked before looking a key up. */
  refuseIfExhausted(ip: string): Promise<void>;
  /** Counts one failure of `ip`; 429 instead of 401 when it is one past the limit. */
  countFailure(ip: string): Promise<void>;
  close(): void;
}

export function authFailureLimit(
  perMinute: number,
  redis: Redis | null,
  log: FastifyBaseLogger,
): AuthFailureLimit {
  const limiter = serviceLimiter(
    { points: perMinute, duration: 60, keyPrefix: 'storefront:authfail' },
    redis,
    log,
  );
  const refusal = (msBeforeNext: number) =>
    rateLimited('Too many failed authentications from this address.', perMinute, msBeforeNext);
  return {
    async refuseIfExhausted(ip) {
      const state = await limiter.get(ip);
      if (state !== null && state.consumedPoints >= perMinute) throw refusal(state.msBeforeNext);
    },
    async countFailure(ip) {
      try {
        await limiter.consume(ip);
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        throw refusal(rejection.msBeforeNext);
      }
    },
    close: () => limiter.close(),
  };
}
