import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/values/ids.js';
import { TestApi, describeEachDatabase, expectError } from '../support/test-api.js';
import type { ApiResponse } from '../support/test-api.js';

const REDIS_URL = process.env.STOREFRONT_TEST_REDIS_URL || null;
const LIMIT = 5;

/** A key of the right shape that no store holds: each one would cost a database lookup. */
const guessedKey = () => `sk_test_${randomBase62(40)}`;

function expectHeldBack(res: ApiResponse, limit: number): void {
  const error = expectError(res, 429, 'rate_limited', null);
  expect(error.message).toMatch(/^Too many failed authentications from this address\. Retry after \d+ s\.$/);
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(res.headers.get('ratelimit-limit')).toBe(String(limit));
  expect(res.headers.get('ratelimit-remaining')).toBe('0');
  expect(res.headers.get('ratelimit-reset')).toBe(String(retryAfter));
}

/**
 * Wrong API keys are counted per client address: the limit's worth answer 401, every one past it 429
 * until the minute's window passes, before any further guess reaches the database. Keys this node has
 * accepted keep working meanwhile.
 */
describeEachDatabase(
  'failed authentication is limited per address',
  (api) => {
    it(`${LIMIT} wrong keys answer 401, the next 429 with Retry-After and RateLimit headers`, async () => {
      const { storeId, key } = await api.createStore();
      expect((await api.as(key).get('/checkouts')).status).toBe(200);

      for (let i = 0; i < LIMIT - 1; i++) {
        expectError(await api.as(guessedKey()).get('/checkouts'), 401, 'unauthorized');
      }
      // A token that is not even shaped like a key counts as well.
      expectError(await api.as('not-a-key').get('/checkouts'), 401, 'unauthorized');

      expectHeldBack(await api.as(guessedKey()).get('/checkouts'), LIMIT);
      expectHeldBack(await api.as('not-a-key').get('/checkouts'), LIMIT);
      // A key never seen here is not looked up while the address is held back, a real one included.
      const unseen = await api.createKey(storeId);
      expectHeldBack(await api.as(unseen).get('/checkouts'), LIMIT);

      // The key this node accepted before keeps working.
      const known = await api.as(key).get('/checkouts');
      expect(known.status).toBe(200);
    });
  },
  { config: { authFailureRateLimitPerMinute: LIMIT } },
);

describe.skipIf(!REDIS_URL)('failed authentications counted in Redis by two app instances', () => {
  const redis = REDIS_URL ? new Redis(REDIS_URL) : null;
  const nodes = [1, 2].map(
    () => new TestApi('sqlite', { config: { authFailureRateLimitPerMinute: 4 }, redis }),
  );

  beforeAll(async () => {
    // Every test client is 127.0.0.1: start from an empty count.
    await redis!.del('storefront:authfail:127.0.0.1');
    for (const node of nodes) await node.start();
  });
  afterAll(async () => {
    for (const node of nodes) await node.stop();
    await redis!.del('storefront:authfail:127.0.0.1');
    redis?.disconnect();
  });

  it('the failures sent to both nodes share one budget', async () => {
    for (let i = 0; i < 4; i++) {
      expectError(await nodes[i % 2]!.as(guessedKey()).get('/checkouts'), 401, 'unauthorized');
    }
    expectHeldBack(await nodes[0]!.as(guessedKey()).get('/checkouts'), 4);
    expectHeldBack(await nodes[1]!.as(guessedKey()).get('/checkouts'), 4);
  });
});
