import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { createProduct, eventsFor, productRow } from './support.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

describeEachDatabase('products: update, archive, reactivation', (api) => {
  let key: string;
  let storeId: string;

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
  });

  describe('PATCH', () => {
    it('changes only the fields sent and records product.updated with the new object', async () => {
      const product = await createProduct(api, key, { descricao: 'antes', garantia: '7 dias' });
      const before = await productRow(api, product.id);
      const res = await api.as(key).patch(`/products/${product.id}`, { descricao: 'depois', preco: 29.9 });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...product, descricao: 'depois', preco: 29.9 });
      expect(await productRow(api, product.id)).toEqual({
        ...before,
        descricao: 'depois',
        preco_cents: 2990,
      });
      const events = await eventsFor(api, storeId, 'product.updated', product.id);
      expect(events).toHaveLength(1);
      expect(events[0].data.object).toEqual(res.body);
    });

    it('null clears a nullable field; a new nome keeps the slug', async () => {
      const product = await createProduct(api, key, { nome: 'Nome Antigo', descricao: 'x' });
      const res = await api.as(key).patch(`/products/${product.id}`, { descricao: null, nome: 'Nome Novo' });
      expect(res.body).toMatchObject({ descricao: null, nome: 'Nome Novo', slug: product.slug });
    });

    it('updated_at keeps equal to created_at', async () => {
      const product = await createProduct(api, key);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const res = await api.as(key).patch(`/products/${product.id}`, { nome: 'Outro' });
      expect(res.body.updated_at).toBe(product.created_at);
      expect(res.body.created_at).toBe(product.created_at);
    });

    it('an empty body or unchanged values answer 200 with the product and record no event', async () => {
      const product = await createProduct(api, key, { descricao: 'igual' });
      const empty = await api.as(key).patch(`/products/${product.id}`, {});
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual(product);
      const same = await api
        .as(key)
        .patch(`/products/${product.id}`, { descricao: 'igual', preco: product.preco });
      expect(same.body).toEqual(product);
      expect(await eventsFor(api, storeId, 'product.updated', product.id)).toHaveLength(0);
    });

    it('a PATCH without any body is 400', async () => {
      const product = await createProduct(api, key);
      expectError(await api.request('PATCH', `/products/${product.id}`, { key }), 400, 'invalid_request');
    });

    it('may keep its own slug; taking another product’s slug is 400 naming slug', async () => {
      const mine = await createProduct(api, key, { slug: 'meu-produto' });
      const theirs = await createProduct(api, key, { slug: 'outro-produto' });
      expect((await api.as(key).patch(`/products/${mine.id}`, { slug: 'meu-produto' })).status).toBe(200);
      expectError(
        await api.as(key).patch(`/products/${mine.id}`, { slug: 'outro-produto' }),
        400,
        'invalid_request',
        'slug',
      );
      expect((await productRow(api, mine.id))?.slug).toBe('meu-produto');
      expect(theirs.slug).toBe('outro-produto');
      const renamed = await api.as(key).patch(`/products/${mine.id}`, { slug: 'novo-endereco' });
      expect(renamed.body.slug).toBe('novo-endereco');
    });

    it('refuses codigo like any field outside the spec, and the codigo stays', async () => {
      const product = await createProduct(api, key);
      expectError(
        await api.as(key).patch(`/products/${product.id}`, { codigo: 'PRD-AAAAAAAA' }),
        400,
        'invalid_request',
        'codigo',
      );
      expect((await productRow(api, product.id))?.codigo).toBe(product.codigo);
    });
  });

  describe('archive and reactivation', () => {
    it('archive sets ativo=false once; the product stays retrievable and listable', async () => {
      const product = await createProduct(api, key);
      const first = await api.as(key).post(`/products/${product.id}/archive`);
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ ...product, ativo: false });
      const second = await api.as(key).post(`/products/${product.id}/archive`);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      const archived = await eventsFor(api, storeId, 'product.archived', product.id);
      expect(archived).toHaveLength(1);
      expect(archived[0].data.object).toEqual(first.body);
      expect((await productRow(api, product.id))?.ativo).toBe(0);
      expect((await api.as(key).get(`/products/${product.id}`)).body.ativo).toBe(false);
      const listed = await api.as(key).get(`/products?ativo=false&codigo=${product.codigo}`);
      expect(listed.body.data).toEqual([first.body]);
    });

    it('PATCH ativo=true reactivates (product.updated); a later archive is a new transition', async () => {
      const product = await createProduct(api, key);
      await api.as(key).post(`/products/${product.id}/archive`);
      const reactivated = await api.as(key).patch(`/products/${product.id}`, { ativo: true });
      expect(reactivated.body.ativo).toBe(true);
      expect((await productRow(api, product.id))?.ativo).toBe(1);
      const updates = await eventsFor(api, storeId, 'product.updated', product.id);
      expect(updates.map((e) => e.data.object.ativo)).toEqual([true]);
      await api.as(key).post(`/products/${product.id}/archive`);
      expect(await eventsFor(api, storeId, 'product.archived', product.id)).toHaveLength(2);
    });

    it('archiving leaves every other field as it was', async () => {
      const product = await createProduct(api, key, { descricao: 'fica', order_bump_enabled: true });
      const before = await productRow(api, product.id);
      await api.as(key).post(`/products/${product.id}/archive`);
      expect(await productRow(api, product.id)).toEqual({ ...before, ativo: 0 });
    });
  });

  describe('missing and foreign products are 404 and stay untouched', () => {
    it('for get, patch and archive', async () => {
      const other = await api.createStore();
      const theirs = await createProduct(api, other.key);
      const before = await productRow(api, theirs.id);
      for (const id of [theirs.id, MISSING, 'not-a-uuid', theirs.codigo]) {
        expectError(await api.as(key).get(`/products/${id}`), 404, 'not_found');
        expectError(await api.as(key).patch(`/products/${id}`, { nome: 'x' }), 404, 'not_found');
        expectError(await api.as(key).post(`/products/${id}/archive`), 404, 'not_found');
      }
      expect(await productRow(api, theirs.id)).toEqual(before);
      expect(await eventsFor(api, other.storeId, 'product.updated', theirs.id)).toHaveLength(0);
    });

    it('validation comes before existence (400 beats 404), in the documented check order', async () => {
      expectError(
        await api.as(key).patch(`/products/${MISSING}`, { preco: -1 }),
        400,
        'invalid_request',
        'preco',
      );
    });
  });

  describe('scopes', () => {
    it('products:read reads only and products:write writes only (scopes are flat)', async () => {
      const product = await createProduct(api, key);
      const read = await api.createKey(storeId, ['products:read']);
      const write = await api.createKey(storeId, ['products:write']);
      expect((await api.as(read).get('/products')).status).toBe(200);
      expect((await api.as(read).get(`/products/${product.id}`)).status).toBe(200);
      expectError(await api.as(read).post('/products', { nome: 'x', preco: 1 }), 403, 'insufficient_scope');
      expectError(await api.as(read).patch(`/products/${product.id}`, {}), 403, 'insufficient_scope');
      expectError(await api.as(read).post(`/products/${product.id}/archive`), 403, 'insufficient_scope');
      expectError(await api.as(write).get('/products'), 403, 'insufficient_scope');
      expectError(await api.as(write).get(`/products/${product.id}`), 403, 'insufficient_scope');
      expect((await api.as(write).patch(`/products/${product.id}`, { nome: 'y' })).status).toBe(200);
    });

    it('checks the scope before validation (403 beats 400) and needs a key (401)', async () => {
      const read = await api.createKey(storeId, ['products:read']);
      expectError(await api.as(read).post('/products', { nome: '' }), 403, 'insufficient_scope');
      expect((await api.request('GET', '/products')).status).toBe(401);
    });
  });

  it('appears in the OpenAPI document with every operation', async () => {
    const res = await api.request('GET', '/openapi.json');
    const paths = res.body.paths;
    expect(Object.keys(paths['/products']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/products/{id}']).sort()).toEqual(['get', 'patch']);
    expect(Object.keys(paths['/products/{id}/archive'])).toEqual(['post']);
    expect(paths['/products'].post.operationId).toBe('createProduct');
    expect(paths['/products'].post.responses['201']).toBeDefined();
    expect(paths['/products'].post.responses['409']).toBeDefined();
    expect(paths['/products'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual([
      'ativo',
      'codigo',
      'limit',
      'slug',
      'starting_after',
    ]);
    expect(paths['/products/{id}'].patch.tags).toEqual(['Products']);
  });
});
