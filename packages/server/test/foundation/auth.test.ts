import { beforeAll, expect, it } from 'vitest';
import { revokeApiKey, listApiKeys, hashApiKey } from '../../src/platform/api-keys/api-keys.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';

describeEachDatabase('authentication', (api) => {
  let key: string;
  let storeId: string;
  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
  });

  const expect401 = async (headers: Record<string, string>) => {
    const res = await api.request('GET', '/checkouts', { headers });
    expectError(res, 401, 'unauthorized', null);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  };

  it('refuses a missing key', () => expect401({}));
  it('refuses a malformed Authorization header', async () => {
    await expect401({ authorization: key });
    await expect401({ authorization: `Basic ${key}` });
    await expect401({ authorization: 'Bearer' });
  });
  it('refuses an unknown key of the right shape', () =>
    expect401({ authorization: `Bearer sk_test_${'A'.repeat(40)}` }));
  it('refuses a key that is not a Storefront key', () => expect401({ authorization: 'Bearer hello' }));
  it('accepts a valid key, case-insensitive scheme', async () => {
    const res = await api.request('GET', '/checkouts', { headers: { authorization: `bearer ${key}` } });
    expect(res.status).toBe(200);
  });
  it('checks authentication before validation and existence (401 beats 400 and 404)', async () => {
    expectError(await api.request('POST', '/checkouts', { body: { name: '' } }), 401, 'unauthorized');
    expectError(
      await api.request('GET', '/checkouts/00000000-0000-4000-8000-000000000000'),
      401,
      'unauthorized',
    );
  });

  it('stores keys only as SHA-256 hashes with a short display prefix', async () => {
    const rows = await api.db.selectFrom('api_keys').selectAll().where('store_id', '=', storeId).execute();
    const row = rows.find((r) => r.key_hash === hashApiKey(key));
    expect(row).toBeDefined();
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(row!.display_prefix).toBe(`${key.slice(0, 12)}…`);
    expect(key).toMatch(/^sk_test_[0-9A-Za-z]{40}$/);
  });

  it('a revoked key stops working within 5 seconds', async () => {
    const victim = await api.createKey(storeId);
    expect((await api.as(victim).get('/checkouts')).status).toBe(200); // now cached
    const [info] = (await listApiKeys(api.db, storeId)).filter((k) => k.prefix === `${victim.slice(0, 12)}…`);
    await revokeApiKey(api.db, info!.id);
    const revokedAt = Date.now();
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 6000) {
      status = (await api.as(victim).get('/checkouts')).status;
      if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(5000);
  });

  it('a live key and a test key of the same store both authenticate', async () => {
    const live = await api.createKey(storeId, undefined, 'live');
    expect(live).toMatch(/^sk_live_/);
    expect((await api.as(live).get('/checkouts')).status).toBe(200);
  });
});
