import { beforeAll, describe, expect, it } from 'vitest';
import { Pagination } from '../../src/platform/http/pagination.js';
import { TEST_SECRET, describeEachDatabase, expectError } from '../support/test-api.js';

describeEachDatabase('cursor pagination', (api) => {
  let key: string;
  let storeId: string;
  const created: string[] = [];

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
    // The default checkout plus 24 more: 25 items.
    for (let i = 0; i < 24; i += 1)
      created.push((await api.as(key).post('/checkouts', { name: `C${i}` })).body.id);
  });

  it('walks 25 items in pages of 10, 10 and 5, newest first, with no gap and no repeat', async () => {
    const pages: Array<{
      data: Array<{ id: string; created_at: string }>;
      has_more: boolean;
      next_cursor: string | null;
    }> = [];
    let cursor: string | null = null;
    do {
      const query: string = `/checkouts?limit=10${cursor ? `&starting_after=${encodeURIComponent(cursor)}` : ''}`;
      const res = await api.as(key).get(query);
      expect(res.status).toBe(200);
      expect(res.body.object).toBe('list');
      pages.push(res.body);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(pages.map((p) => p.data.length)).toEqual([10, 10, 5]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    expect(pages[2]!.next_cursor).toBeNull();
    const ids = pages.flatMap((p) => p.data.map((c) => c.id));
    expect(new Set(ids).size).toBe(25);
    const all = await api.as(key).get('/checkouts?limit=100');
    expect(ids).toEqual(all.body.data.map((c: { id: string }) => c.id));
    const stamps = pages.flatMap((p) => p.data.map((c) => `${c.created_at}|${c.id}`));
    expect([...stamps].sort().reverse()).toEqual(stamps);
    expect(new Set(ids.slice(0, 24))).toEqual(new Set(created));
    expect(ids).toEqual(await api.newestFirst('checkouts', storeId));
  });

  it('defaults to 20 items', async () => {
    const res = await api.as(key).get('/checkouts');
    expect(res.body.data).toHaveLength(20);
    expect(res.body.has_more).toBe(true);
  });

  describe('limit is an integer 1-100', () => {
    it('accepts 1 and 100', async () => {
      expect((await api.as(key).get('/checkouts?limit=1')).body.data).toHaveLength(1);
      expect((await api.as(key).get('/checkouts?limit=100')).body.data).toHaveLength(25);
    });
    for (const bad of ['0', '101', '-1', '1.5', 'abc', '', 'Infinity', '-Infinity', '1e400']) {
      it(`refuses limit=${bad}`, async () => {
        expectError(await api.as(key).get(`/checkouts?limit=${bad}`), 400, 'invalid_request', 'limit');
      });
    }
    it('says a number that is not finite must be a whole number', async () => {
      const error = expectError(await api.as(key).get('/checkouts?limit=Infinity'), 400, 'invalid_request');
      expect(error.message).toBe('Invalid query parameter limit: must be a whole number.');
    });
  });

  describe('cursors are opaque and signed', () => {
    let cursor: string;
    beforeAll(async () => {
      cursor = (await api.as(key).get('/checkouts?limit=5')).body.next_cursor;
    });
    it('refuses garbage', async () => {
      for (const bad of ['abc', 'a.b', 'a.b.c', '...']) {
        expectError(
          await api.as(key).get(`/checkouts?starting_after=${encodeURIComponent(bad)}`),
          400,
          'invalid_request',
          'starting_after',
        );
      }
    });
    it('refuses a tampered cursor', async () => {
      const [payload, signature] = cursor.split('.');
      const body = JSON.parse(Buffer.from(payload!, 'base64url').toString());
      body.t = '2000-01-01T00:00:00.000Z';
      const forged = `${Buffer.from(JSON.stringify(body)).toString('base64url')}.${signature}`;
      expectError(
        await api.as(key).get(`/checkouts?starting_after=${forged}`),
        400,
        'invalid_request',
        'starting_after',
      );
    });
    it("refuses another store's cursor", async () => {
      const other = await api.createStore();
      expectError(
        await api.as(other.key).get(`/checkouts?starting_after=${cursor}`),
        400,
        'invalid_request',
        'starting_after',
      );
    });
    it('refuses a cursor of another listing', async () => {
      // Validly signed, same store, but minted for another listing.
      const foreign = new Pagination(TEST_SECRET).encode('events', storeId, {
        createdAt: '2026-01-01T00:00:00.000Z',
        id: 'x',
      });
      expectError(
        await api.as(key).get(`/checkouts?starting_after=${foreign}`),
        400,
        'invalid_request',
        'starting_after',
      );
    });
  });
});
