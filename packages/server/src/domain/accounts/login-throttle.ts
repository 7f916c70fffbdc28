import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterRes } from 'rate-limiter-flexible';
import { serviceLimiter } from '../../platform/http/rate-limit.js';
import { emailKey } from './users.js';

/** After this many failures in the window for one (IP, e-mail), that pair is held until the window ends. */
export const LOGIN_FAILURES_ALLOWED = 5;
export const LOGIN_WINDOW_SECONDS = 15 * 60;
/** Any login attempts from one IP, whatever the e-mail: a flood of guesses across accounts. */
export const LOGIN_ATTEMPTS_PER_IP_MINUTE = 60;

export interface LoginThrottle {
  /** Seconds the pair (or the IP) must wait, or null when it may try. */
  heldFor(ip: string, email: string): Promise<number | null>;
  /** Counts a wrong password or code for the pair. */
  failed(ip: string, email: string): Promise<void>;
  close(): void;
}

const seconds = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/**
 * Login throttling on the service's limiter store (Redis across nodes when configured): failures
 * per (IP, e-mail) in a 15-minute window, and a broad cap of attempts per IP. Once a pair has failed
 * five times, every attempt of it, even with the right password, waits for the window to pass; other
 * e-mails from the same IP are not held back by it.
 */
export function loginThrottle(redis: Redis | null, log: FastifyBaseLogger): LoginThrottle {
  const failures = serviceLimiter(
    {
      points: LOGIN_FAILURES_ALLOWED,
      duration: LOGIN_WINDOW_SECONDS,
      keyPrefix: 'storefront:login-failures',
    },
    redis,
    log,
  );
  const attempts = serviceLimiter(
    { points: LOGIN_ATTEMPTS_PER_IP_MINUTE, duration: 60, keyPrefix: 'storefront:login-ip' },
    redis,
    log,
  );
  const pair = (ip: string, email: string) => `${ip}|${emailKey(email)}`;
  return {
    async heldFor(ip, email) {
      const held = await failures.get(pair(ip, email));
      if (held && held.consumedPoints >= LOGIN_FAILURES_ALLOWED) return seconds(held);
      try {
        await attempts.consume(ip);
        return null;
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return seconds(rejection);
      }
    },
    async failed(ip, email) {
      try {
        await failures.consume(pair(ip, email));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
      }
    },
    close() {
      failures.close();
      attempts.close();
    },
  };
}
