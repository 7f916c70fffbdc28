import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { createProduct } from './support.js';

describeEachDatabase('products: listing', (api) => {
  let key: string;
  let storeId: string;
  const created: string[] = [];
  const active: string[] = [];
  const inactive: string[] = [];

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
    // 25 products created in order, every third one inactive: 16 active, 9 inactive.
    for (let i = 0; i < 25; i++) {
      const product = await createProduct(api, key, { nome: `Item ${i}`, ativo: i % 3 !== 0 });
      created.push(product.id);
      (product.ativo ? active : inactive).push(product.id);
    }
  });

  /** Follows next_cursor to the end, checking every page's shape. */
  async function walk(query: string, limit: number) {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const after: string = cursor ? `&starting_after=${encodeURIComponent(cursor)}` : '';
      const res = await api.as(key).get(`/products?limit=${limit}${query}${after}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.object).toBe('list');
      expect(res.body.next_cursor === null).toBe(!res.body.has_more);
      pages.push(res.body.data.map((p: { id: string }) => p.id));
      cursor = res.body.next_cursor;
    } while (cursor);
    return pages;
  }

  it('lists every product newest first, 20 by default', async () => {
    const res = await api.as(key).get('/products');
    expect(res.body.data).toHaveLength(20);
    expect(res.body.has_more).toBe(true);
    const newest = await api.newestFirst('products', storeId);
    expect(new Set(newest)).toEqual(new Set(created));
    expect((await walk('', 100)).flat()).toEqual(newest);
  });

  /** The store's products of one kind, newest first (see `newestFirst`). */
  const newestOf = async (kind: string[]) =>
    (await api.newestFirst('products', storeId)).filter((id) => kind.includes(id));

  it('filters ativo=true across pages of 10 (10, 6) without gaps or repeats', async () => {
    const pages = await walk('&ativo=true', 10);
    expect(pages.map((page) => page.length)).toEqual([10, 6]);
    expect(pages.flat()).toEqual(await newestOf(active));
  });

  it('filters ativo=false across pages of 3', async () => {
    const pages = await walk('&ativo=false', 3);
    expect(pages.map((page) => page.length)).toEqual([3, 3, 3]);
    expect(pages.flat()).toEqual(await newestOf(inactive));
  });

  it('filters by exact codigo and exact slug, alone and combined with ativo', async () => {
    const product = (await api.as(key).get(`/products/${active[0]}`)).body;
    const byCodigo = await api.as(key).get(`/products?codigo=${product.codigo}`);
    expect(byCodigo.body.data.map((p: { id: string }) => p.id)).toEqual([product.id]);
    const bySlug = await api.as(key).get(`/products?slug=${product.slug}`);
    expect(bySlug.body.data.map((p: { id: string }) => p.id)).toEqual([product.id]);
    const combined = await api.as(key).get(`/products?slug=${product.slug}&ativo=false`);
    expect(combined.body).toEqual({ object: 'list', data: [], has_more: false, next_cursor: null });
    const lower = await api.as(key).get(`/products?codigo=${product.codigo.toLowerCase()}`);
    expect(lower.body.data).toEqual([]);
  });

  describe('rejects query parameters outside the spec', () => {
    for (const value of ['1', '0', 'yes', 'TRUE', 'False', '', 'null']) {
      it(`ativo=${JSON.stringify(value)} is 400 naming ativo`, async () => {
        expectError(await api.as(key).get(`/products?ativo=${value}`), 400, 'invalid_request', 'ativo');
      });
    }
    it('ativo given twice is 400', async () => {
      expectError(await api.as(key).get('/products?ativo=true&ativo=false'), 400, 'invalid_request', 'ativo');
    });
    it('an unknown parameter is 400 naming it', async () => {
      expectError(await api.as(key).get('/products?nome=x'), 400, 'invalid_request', 'nome');
      expectError(await api.as(key).get('/products?ativo=true&order=asc'), 400, 'invalid_request', 'order');
    });
    it('limit outside 1..100, an empty codigo and a foreign cursor are 400', async () => {
      expectError(await api.as(key).get('/products?limit=0'), 400, 'invalid_request', 'limit');
      expectError(await api.as(key).get('/products?limit=101'), 400, 'invalid_request', 'limit');
      expectError(await api.as(key).get('/products?codigo='), 400, 'invalid_request', 'codigo');
      expectError(await api.as(key).get('/products?codigo=PRD-%00'), 400, 'invalid_request', 'codigo');
      expectError(await api.as(key).get('/products?slug=a%00'), 400, 'invalid_request', 'slug');
      const checkouts = await api.as(key).get('/checkouts?limit=1');
      await api.as(key).post('/checkouts', { name: 'second' });
      const page = await api.as(key).get('/checkouts?limit=1');
      expect(checkouts.status).toBe(200);
      expectError(
        await api.as(key).get(`/products?starting_after=${page.body.next_cursor}`),
        400,
        'invalid_request',
        'starting_after',
      );
    });
  });

  it("never lists another store's products", async () => {
    const other = await api.createStore();
    const theirs = await createProduct(api, other.key);
    const res = await api.as(key).get(`/products?limit=100&codigo=${theirs.codigo}`);
    expect(res.body.data).toEqual([]);
  });
});
