import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Limiter } from '../../platform/http/rate-limit.js';
import { serviceLimiter } from '../../platform/http/rate-limit.js';
import { emailKey } from './users.js';

/** After this many failures in the window for one (IP, e-mail), that pair is held until the window ends. */
export const LOGIN_FAILURES_ALLOWED = 5;
export const LOGIN_WINDOW_SECONDS = 15 * 60;
/** Failed (or still running) attempts from one IP in a minute, whatever the e-mail: guesses across accounts. */
export const LOGIN_ATTEMPTS_PER_IP_MINUTE = 20;
/** "Esqueci minha senha": requests per e-mail and per IP in an hour. */
export const RESET_REQUESTS_PER_EMAIL_HOUR = 3;
export const RESET_REQUESTS_PER_IP_HOUR = 10;

export interface LoginThrottle {
  /**
   * Takes one attempt of the pair and of the IP before anything is checked (so parallel guesses
   * cannot all pass a check made before any of them failed): the seconds to wait when either is
   * spent, else null. A right answer gives it back with `succeeded`; a wrong one keeps it counted.
   */
  attempt(ip: string, email: string): Promise<number | null>;
  /** The attempt was right (or never checked): its points are given back, so only failures count. */
  succeeded(ip: string, email: string): Promise<void>;
  /** Takes one of the IP's attempts only (opening a link whose token could be guessed). */
  ipAttempt(ip: string): Promise<number | null>;
  /** A password reset request, counted per e-mail and per IP: the seconds to wait, or null. */
  resetRequest(ip: string, email: string): Promise<number | null>;
  close(): void;
}

const seconds = (res: RateLimiterRes) => Math.max(1, Math.ceil(res.msBeforeNext / 1000));

/** Consumes a point of `key`: null, or the seconds until the window frees one. */
async function take(limiter: Limiter, key: string): Promise<number | null> {
  try {
    await limiter.consume(key);
    return null;
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    return seconds(rejection);
  }
}

/**
 * Login throttling on the service's limiter store (Redis across nodes when configured): attempts per
 * (IP, e-mail) in a 15-minute window, and per IP in a minute, both taken before the password or code
 * is checked and given back when it was right. Once a pair has used its five, every attempt of it,
 * even with the right password, waits for the window to pass; other e-mails from the same IP are not
 * held back by it.
 */
export function loginThrottle(redis: Redis | null, log: FastifyBaseLogger): LoginThrottle {
  const limiter = (points: number, duration: number, name: string) =>
    serviceLimiter({ points, duration, keyPrefix: `storefront:${name}` }, redis, log);
  const pairs = limiter(LOGIN_FAILURES_ALLOWED, LOGIN_WINDOW_SECONDS, 'login-failures');
  const ips = limiter(LOGIN_ATTEMPTS_PER_IP_MINUTE, 60, 'login-ip');
  const resetEmails = limiter(RESET_REQUESTS_PER_EMAIL_HOUR, 3600, 'reset-email');
  const resetIps = limiter(RESET_REQUESTS_PER_IP_HOUR, 3600, 'reset-ip');
  const pair = (ip: string, email: string) => `${ip}|${emailKey(email)}`;
  return {
    async attempt(ip, email) {
      const ipWait = await take(ips, ip);
      if (ipWait !== null) return ipWait;
      const pairWait = await take(pairs, pair(ip, email));
      // A held pair does not use up the IP's attempts for its other e-mails.
      if (pairWait !== null) await ips.reward(ip);
      return pairWait;
    },
    async succeeded(ip, email) {
      await pairs.reward(pair(ip, email));
      await ips.reward(ip);
    },
    ipAttempt: (ip) => take(ips, ip),
    async resetRequest(ip, email) {
      return (await take(resetIps, ip)) ?? (await take(resetEmails, emailKey(email)));
    },
    close() {
      for (const each of [pairs, ips, resetEmails, resetIps]) each.close();
    },
  };
}
