import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';

const COUPON_KEYS = [
  'active',
  'amount_off',
  'code',
  'created_at',
  'expires_at',
  'id',
  'max_redemptions',
  'object',
  'percent_off',
  'product_ids',
  'times_redeemed',
].sort();

describeEachDatabase('coupons API', (api) => {
  let key: string;
  let storeId: string;
  let productId: string;

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
    productId = (await api.as(key).post('/products', { nome: 'Curso', preco: 100 })).body.id;
  });

  it('creates a coupon with documented defaults, upper-cases the code, and reads it back', async () => {
    const res = await api.as(key).post('/coupons', { code: 'BemVindo10', percent_off: 10 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(COUPON_KEYS);
    expect(res.body).toMatchObject({
      object: 'coupon',
      code: 'BEMVINDO10',
      percent_off: 10,
      amount_off: null,
      active: true,
      max_redemptions: null,
      times_redeemed: 0,
      expires_at: null,
      product_ids: [],
    });
    expect(res.body.id).toMatch(/^cpn_[0-9A-Za-z]{24}$/);
    expect((await api.as(key).get(`/coupons/${res.body.id}`)).body).toEqual(res.body);
    const row = await api.db
      .selectFrom('coupons')
      .selectAll()
      .where('id', '=', res.body.id)
      .executeTakeFirst();
    expect(row).toMatchObject({ store_id: storeId, code_key: 'BEMVINDO10', percent_off: 10 });
  });

  it('holds the boundaries: code 3..40 of A-Z0-9_-, percent 1..100, amount 0.01..1,000,000, exactly one discount', async () => {
    const ok = [
      { code: 'ABC', percent_off: 1 },
      { code: 'A'.repeat(40), percent_off: 100 },
      { code: 'a_b-9', amount_off: 0.01 },
      { code: 'MAX', amount_off: 1_000_000, max_redemptions: 1, product_ids: [productId] },
    ];
    for (const body of ok)
      expect((await api.as(key).post('/coupons', body)).status, JSON.stringify(body)).toBe(201);
    const bad: [Record<string, unknown>, string][] = [
      [{ code: 'AB', percent_off: 5 }, 'code'],
      [{ code: 'A'.repeat(41), percent_off: 5 }, 'code'],
      [{ code: 'NO SPACE', percent_off: 5 }, 'code'],
      [{ code: 'PCT0', percent_off: 0 }, 'percent_off'],
      [{ code: 'PCT101', percent_off: 101 }, 'percent_off'],
      [{ code: 'PCTX', percent_off: 1.5 }, 'percent_off'],
      [{ code: 'AMT0', amount_off: 0 }, 'amount_off'],
      [{ code: 'AMTBIG', amount_off: 1_000_000.01 }, 'amount_off'],
      [{ code: 'AMT3', amount_off: 1.001 }, 'amount_off'],
      [{ code: 'NONE' }, 'percent_off'],
      [{ code: 'BOTH', percent_off: 5, amount_off: 5 }, 'amount_off'],
      [{ code: 'MAXR', percent_off: 5, max_redemptions: 0 }, 'max_redemptions'],
      [{ code: 'PAST', percent_off: 5, expires_at: '2020-01-01T00:00:00.000Z' }, 'expires_at'],
      [
        { code: 'PROD', percent_off: 5, product_ids: ['00000000-0000-4000-8000-000000000000'] },
        'product_ids.0',
      ],
      [{ code: 'EXTRA', percent_off: 5, livemode: true }, 'livemode'],
    ];
    for (const [body, param] of bad)
      expectError(await api.as(key).post('/coupons', body), 400, 'invalid_request', param);
    const written = await api.db
      .selectFrom('coupons')
      .select('code')
      .where('store_id', '=', storeId)
      .execute();
    expect(written.map((r) => r.code)).not.toContain('PCT0');
  });

  it('a code is unique per store whatever the case, but another store may use it', async () => {
    await api.as(key).post('/coupons', { code: 'UNICO', percent_off: 5 });
    expectError(
      await api.as(key).post('/coupons', { code: 'unico', percent_off: 7 }),
      400,
      'invalid_request',
      'code',
    );
    const other = await api.createStore({ name: 'Outra' });
    expect((await api.as(other.key).post('/coupons', { code: 'unico', percent_off: 7 })).status).toBe(201);
  });

  it('replays an idempotent creation', async () => {
    const headers = { 'idempotency-key': 'coupon-once' };
    const first = await api.as(key).post('/coupons', { code: 'IDEM', amount_off: 5 }, headers);
    const second = await api.as(key).post('/coupons', { code: 'IDEM', amount_off: 5 }, headers);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
  });

  it('PATCH changes activity, limit, expiry and products, but not code or discount; limit never below times_redeemed', async () => {
    const created = (await api.as(key).post('/coupons', { code: 'EDIT', percent_off: 20 })).body;
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const res = await api.as(key).patch(`/coupons/${created.id}`, {
      active: false,
      max_redemptions: 3,
      expires_at: expires,
      product_ids: [productId],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      active: false,
      max_redemptions: 3,
      expires_at: expires,
      product_ids: [productId],
    });
    expect((await api.as(key).get(`/coupons/${created.id}`)).body).toEqual(res.body);
    expectError(
      await api.as(key).patch(`/coupons/${created.id}`, { code: 'NEW' }),
      400,
      'invalid_request',
      'code',
    );
    expectError(
      await api.as(key).patch(`/coupons/${created.id}`, { percent_off: 5 }),
      400,
      'invalid_request',
      'percent_off',
    );
    await api.db.updateTable('coupons').set({ times_redeemed: 2 }).where('id', '=', created.id).execute();
    expectError(
      await api.as(key).patch(`/coupons/${created.id}`, { max_redemptions: 1 }),
      400,
      'invalid_request',
      'max_redemptions',
    );
    expect(
      (await api.as(key).patch(`/coupons/${created.id}`, { max_redemptions: 2 })).body.max_redemptions,
    ).toBe(2);
    expect(
      (await api.as(key).patch(`/coupons/${created.id}`, { max_redemptions: null, expires_at: null })).body,
    ).toMatchObject({
      max_redemptions: null,
      expires_at: null,
    });
  });

  it('archives idempotently and lists newest first, filtered by active', async () => {
    const { key: own } = await api.createStore({ name: 'Lista' });
    const a = (await api.as(own).post('/coupons', { code: 'AAA', percent_off: 5 })).body;
    const b = (await api.as(own).post('/coupons', { code: 'BBB', percent_off: 5 })).body;
    expect((await api.as(own).post(`/coupons/${a.id}/archive`)).body.active).toBe(false);
    expect((await api.as(own).post(`/coupons/${a.id}/archive`)).body.active).toBe(false);
    expect((await api.as(own).get('/coupons')).body.data.map((c: any) => c.id)).toEqual([b.id, a.id]);
    expect((await api.as(own).get('/coupons?active=false')).body.data.map((c: any) => c.id)).toEqual([a.id]);
    const page = await api.as(own).get('/coupons?limit=1');
    expect(page.body.has_more).toBe(true);
    const next = await api.as(own).get(`/coupons?limit=1&starting_after=${page.body.next_cursor}`);
    expect(next.body.data.map((c: any) => c.id)).toEqual([a.id]);
  });

  it("another store's coupon is 404 everywhere; scopes coupons:read and coupons:write are required", async () => {
    const other = await api.createStore({ name: 'Alheia' });
    const theirs = (await api.as(other.key).post('/coupons', { code: 'DELES', percent_off: 5 })).body;
    expectError(await api.as(key).get(`/coupons/${theirs.id}`), 404, 'not_found');
    expectError(await api.as(key).patch(`/coupons/${theirs.id}`, { active: false }), 404, 'not_found');
    expectError(await api.as(key).post(`/coupons/${theirs.id}/archive`), 404, 'not_found');
    expectError(await api.as(key).get('/coupons/nope'), 404, 'not_found');
    expect((await api.as(other.key).get(`/coupons/${theirs.id}`)).body.active).toBe(true);
    expect((await api.as(key).get('/coupons?limit=100')).body.data.map((c: any) => c.id)).not.toContain(
      theirs.id,
    );
    const readOnly = await api.createKey(storeId, ['coupons:read']);
    const writeOnly = await api.createKey(storeId, ['coupons:write']);
    expect((await api.as(readOnly).get('/coupons')).status).toBe(200);
    expectError(await api.as(readOnly).post('/coupons', { code: 'X' }), 403, 'insufficient_scope');
    expectError(await api.as(writeOnly).get('/coupons'), 403, 'insufficient_scope');
  });
});
