import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config/config.js';
import { ConfigError } from '../../src/platform/config/config.js';
import { describeEachDatabase, TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardRequest } from '../support/dashboard.js';

const REDIS_URL = process.env.STOREFRONT_TEST_REDIS_URL || null;

const login = (baseUrl: string, email: string, password: string, forwardedFor?: string) =>
  dashboardRequest(
    baseUrl,
    null,
    'POST',
    '/dashboard/login',
    { email, password },
    { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} },
  );

describe.skipIf(!REDIS_URL)('login throttling shared through Redis by two nodes', () => {
  // Counters of this file's own: other files (and an earlier run within the minute) log in from
  // 127.0.0.1 too, and a shared per-IP count would hold this file's logins back.
  const redis = REDIS_URL
    ? new Redis(REDIS_URL, { keyPrefix: `test-${randomBytes(6).toString('hex')}:` })
    : null;
  const nodeA = new TestApi('sqlite', { redis });
  const nodeB = new TestApi('sqlite', { redis });
  beforeAll(async () => {
    // Until the client is ready each node counts on its own (the limiter's fallback): with cheap test
    // hashing the first logins would come before the connection.
    await redis?.ping();
    await nodeA.start();
    await nodeB.startOn(nodeA.database);
  });
  afterAll(async () => {
    await nodeB.app.close();
    await nodeA.stop();
    redis?.disconnect();
  });

  it('5 failures spread over two nodes hold the pair on both', async () => {
    const { storeId } = await nodeA.createStore();
    const user = await addDashboardUser(
      nodeA,
      storeId,
      'viewer',
      `redis-${randomBytes(6).toString('hex')}@loja.example`,
    );
    for (let i = 0; i < 5; i++) {
      const node = i % 2 === 0 ? nodeA : nodeB;
      expect((await login(node.baseUrl, user.email, `wrong-${i}`)).status).toBe(401);
    }
    for (const node of [nodeA, nodeB]) {
      const held = await login(node.baseUrl, user.email, user.password);
      expect(held.status).toBe(429);
      expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});

describeEachDatabase(
  'behind a reverse proxy (STOREFRONT_TRUST_PROXY)',
  (api) => {
    it("throttles by the client's forwarded address, and audits it", async () => {
      const { storeId } = await api.createStore();
      const user = await addDashboardUser(api, storeId, 'owner');
      for (let i = 0; i < 5; i++) {
        expect((await login(api.baseUrl, user.email, `wrong-${i}`, '203.0.113.7')).status).toBe(401);
      }
      expect((await login(api.baseUrl, user.email, user.password, '203.0.113.7')).status).toBe(429);
      // Another client behind the same proxy is not held back.
      expect((await login(api.baseUrl, user.email, user.password, '198.51.100.20')).status).toBe(303);
      const ips = await api.db
        .selectFrom('audit_log')
        .select(['action', 'ip'])
        .where('store_id', '=', storeId)
        .execute();
      expect(ips).toContainEqual({ action: 'login_failed', ip: '203.0.113.7' });
      expect(ips).toContainEqual({ action: 'login', ip: '198.51.100.20' });
    });
  },
  { config: { trustProxy: ['127.0.0.1'] } },
);

describeEachDatabase('not behind a proxy', (api) => {
  it('ignores X-Forwarded-For: a client cannot pick its address to dodge the throttle', async () => {
    const { storeId } = await api.createStore();
    const user = await addDashboardUser(api, storeId, 'viewer');
    for (let i = 0; i < 5; i++) {
      expect((await login(api.baseUrl, user.email, `wrong-${i}`, `192.0.2.${i}`)).status).toBe(401);
    }
    expect((await login(api.baseUrl, user.email, user.password, '192.0.2.99')).status).toBe(429);
  });
});

describe('STOREFRONT_TRUST_PROXY', () => {
  const parse = (value: string) =>
    loadConfig({
      STOREFRONT_SECRET: 'x'.repeat(40),
      DATABASE_URL: 'sqlite::memory:',
      STOREFRONT_TRUST_PROXY: value,
    }).trustProxy;
  it('takes hops or addresses and CIDR ranges; refuses anything else', () => {
    expect(parse('')).toBe(false);
    expect(parse('1')).toBe(1);
    expect(parse('10')).toBe(10);
    expect(parse('127.0.0.1, 10.0.0.0/8,::1')).toEqual(['127.0.0.1', '10.0.0.0/8', '::1']);
    for (const bad of ['0', '11', 'true', '10.0.0.0/33', 'proxy.local', '::1/129']) {
      expect(() => parse(bad), bad).toThrow(ConfigError);
    }
  });
});
