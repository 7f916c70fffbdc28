import { Redis } from 'ioredis';
import type { BaseLogger } from 'pino';

/**
 * How long a Redis command may take before the caller stops waiting: a stalled Redis (accepting,
 * not answering) then costs a request at most this, once, before rate limits go in-process.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 250;

/** How long a starting service waits for Redis before serving without it. */
const READY_WAIT_MS = 2000;

/**
 * The shared rate-limit store. Commands fail at once while disconnected (no offline queue) and
 * after REDIS_COMMAND_TIMEOUT_MS when Redis does not answer, so no request waits on it; reconnection
 * is ioredis's own, every second at most. Connection errors are expected during an outage and the
 * rate limiter reports the outage once, so they are only logged at debug here (without a listener,
 * ioredis prints "Unhandled error event" for each).
 */
export async function connectRedis(url: string, log: Pick<BaseLogger, 'debug'>): Promise<Redis> {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  });
  redis.on('error', (error: Error) => log.debug({ error: error.message }, 'redis connection error'));
  // The first requests should find it connected; a Redis that is down at start is an outage like any other.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, READY_WAIT_MS);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return redis;
}
