import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/platform/values/ids.js';
import { TestApi, describeEachDatabase, expectError } from '../support/test-api.js';

const REDIS_URL = process.env.STOREFRONT_TEST_REDIS_URL || null;

describeEachDatabase(
  'rate limiting (in-process)',
  (api) => {
    it('allows the rate per second per key, then answers 429 with Retry-After and RateLimit headers', async () => {
      const { key } = await api.createStore();
      const responses = await Promise.all(Array.from({ length: 8 }, () => api.as(key).get('/checkouts')));
      const ok = responses.filter((r) => r.status === 200);
      const limited = responses.filter((r) => r.status === 429);
      // 5 per second: a window boundary may fall inside the burst, so at least 5 and at most 8 pass.
      expect(ok.length).toBeGreaterThanOrEqual(5);
      expect(ok[0]!.headers.get('ratelimit-limit')).toBe('5');
      if (limited.length === 0) return; // the burst straddled a window boundary
      const res = limited[0]!;
      expectError(res, 429, 'rate_limited');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
    });

    it('keeps each key in its own bucket', async () => {
      const a = await api.createStore();
      const b = await api.createStore();
      let limited = false;
      for (let i = 0; i < 12 && !limited; i += 1)
        limited = (await api.as(a.key).get('/checkouts')).status === 429;
      expect(limited).toBe(true);
      expect((await api.as(b.key).get('/checkouts')).status).toBe(200);
    });
  },
  { config: { rateLimitPerSecond: 5 } },
);

describe.skipIf(!REDIS_URL)('rate limiting shared through Redis by two app instances', () => {
  const redis = REDIS_URL ? new Redis(REDIS_URL) : null;
  const nodeA = new TestApi('sqlite', { config: { rateLimitPerSecond: 6 }, redis });
  let nodeB: TestApi;

  beforeAll(async () => {
    await nodeA.start();
    // Node B serves the same database file: two nodes of one deployment.
    nodeB = new TestApi('sqlite', { config: { rateLimitPerSecond: 6 }, redis });
    nodeB.database = nodeA.database;
    await startOn(nodeB);
  });
  afterAll(async () => {
    await nodeB.app.close();
    await nodeA.stop();
    redis?.disconnect();
  });

  it('one key sending to both nodes gets one budget, not two', async () => {
    const { key } = await nodeA.createStore({ name: `redis-${randomBase62(6)}` });
    const sequence = Array.from({ length: 14 }, (_, i) => (i % 2 === 0 ? nodeA : nodeB));
    const statuses = await Promise.all(
      sequence.map((node) =>
        node
          .as(key)
          .get('/checkouts')
          .then((r) => r.status),
      ),
    );
    const ok = statuses.filter((s) => s === 200).length;
    // Two separate in-process budgets would let 12 through; one shared budget lets 6 (12 if a window turns).
    expect(statuses).toContain(429);
    expect(ok).toBeLessThan(12);
  });
});

async function startOn(node: TestApi): Promise<void> {
  const { buildApp } = await import('../../src/channels/server/app.js');
  const { loadConfig } = await import('../../src/platform/config/config.js');
  node.app = await buildApp({
    config: {
      ...loadConfig({ DATABASE_URL: node.database.url, STOREFRONT_SECRET: 'x'.repeat(40) }),
      rateLimitPerSecond: 6,
    },
    db: node.database.db.kysely,
    redis: (node as unknown as { options: { redis: Redis } }).options.redis,
    logger: false,
  });
  await node.app.listen({ port: 0, host: '127.0.0.1' });
  const address = node.app.server.address();
  node.baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}
