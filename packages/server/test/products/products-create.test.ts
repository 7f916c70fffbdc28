import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { CODIGO, PRODUCT_KEYS, countRows, createProduct, eventsFor, productRow } from './support.js';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describeEachDatabase('products: creation', (api) => {
  let key: string;
  let storeId: string;

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
  });

  it('creates with the documented defaults and exactly the documented keys', async () => {
    const res = await api.as(key).post('/products', { nome: 'Ebook de Receitas', preco: 19.99 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(PRODUCT_KEYS);
    expect(res.body).toEqual({
      object: 'product',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      codigo: expect.stringMatching(CODIGO),
      nome: 'Ebook de Receitas',
      slug: 'ebook-de-receitas',
      descricao: null,
      imagem: null,
      preco: 19.99,
      ativo: true,
      checkout_id: null,
      link_acesso: null,
      garantia: null,
      order_bump_enabled: false,
      order_bump_product_id: null,
      order_bump_title: null,
      order_bump_description: null,
      delivery_email_subject: null,
      delivery_email_body: null,
      recorrencia: null,
      retry_policy: '3_in_7_days',
      created_at: expect.stringMatching(ISO_MS),
      updated_at: res.body.created_at,
    });
    const row = await productRow(api, res.body.id);
    expect(row).toMatchObject({ store_id: storeId, preco_cents: 1999, ativo: 1, codigo: res.body.codigo });
  });

  it('stores every field sent and answers it back; GET returns the same object', async () => {
    const bump = await createProduct(api, key);
    const checkout = await api.as(key).post('/checkouts', { name: 'Lançamento' });
    const body = {
      nome: 'Curso Completo',
      preco: 497,
      slug: 'curso-completo-2026',
      descricao: 'Aulas em vídeo 🎬',
      imagem: 'https://cdn.example.com/curso.png',
      ativo: false,
      link_acesso: 'https://membros.example.com/curso',
      garantia: '7 dias',
      checkout_id: checkout.body.id,
      order_bump_enabled: true,
      order_bump_product_id: bump.id,
      order_bump_title: 'Leve também',
      order_bump_description: 'O ebook por R$ 10',
      delivery_email_subject: 'Seu acesso',
      delivery_email_body: 'Olá! Seu acesso está pronto.',
    };
    const res = await api.as(key).post('/products', body);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toMatchObject(body);
    expect((await api.as(key).get(`/products/${res.body.id}`)).body).toEqual(res.body);
    const row = await productRow(api, res.body.id);
    const { preco, ...stored } = body;
    expect(row).toMatchObject({ ...stored, ativo: 0, order_bump_enabled: 1, preco_cents: preco * 100 });
  });

  it('records product.created in the same write, carrying the product object', async () => {
    const product = await createProduct(api, key);
    const events = await eventsFor(api, storeId, 'product.created', product.id);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ object: 'event', type: 'product.created', livemode: false });
    expect(events[0].id).toMatch(/^evt_/);
    expect(events[0].data.object).toEqual(product);
  });

  it('generates a codigo unique within the store', async () => {
    const products = await Promise.all(Array.from({ length: 30 }, () => createProduct(api, key)));
    const codigos = new Set(products.map((p) => p.codigo));
    expect(codigos.size).toBe(30);
    for (const codigo of codigos) expect(codigo).toMatch(CODIGO);
  });

  it('the database itself refuses a duplicate codigo within a store', async () => {
    const product = await createProduct(api, key);
    const row = await productRow(api, product.id);
    const copy = { ...row!, id: crypto.randomUUID(), slug: `${row!.slug}-copy` };
    await expect(api.db.insertInto('products').values(copy).execute()).rejects.toThrow();
  });

  describe('slug', () => {
    it('is generated from nome without accents, with -2, -3… on collision', async () => {
      const slugs = [];
      for (let i = 0; i < 3; i++)
        slugs.push((await createProduct(api, key, { nome: 'Curso de Violão' })).slug);
      expect(slugs).toEqual(['curso-de-violao', 'curso-de-violao-2', 'curso-de-violao-3']);
    });

    it('skips suffixes already taken by sent slugs', async () => {
      await createProduct(api, key, { nome: 'Mentoria', slug: 'mentoria' });
      await createProduct(api, key, { nome: 'Outra', slug: 'mentoria-2' });
      expect((await createProduct(api, key, { nome: 'Mentoria' })).slug).toBe('mentoria-3');
    });

    it('is cut to 60 characters, suffix included', async () => {
      const nome = 'Palavra '.repeat(12);
      const first = await createProduct(api, key, { nome });
      const second = await createProduct(api, key, { nome });
      expect(first.slug).toBe('palavra-palavra-palavra-palavra-palavra-palavra-palavra-pala');
      expect(second.slug).toBe('palavra-palavra-palavra-palavra-palavra-palavra-palavra-pa-2');
      expect(second.slug).toHaveLength(60);
    });

    it('falls back to "produto" when nome has no letter or digit', async () => {
      const first = await createProduct(api, key, { nome: '🎸🎸' });
      const second = await createProduct(api, key, { nome: '!!!' });
      expect(first.slug).toMatch(/^produto(-\d+)?$/);
      expect(second.slug).not.toBe(first.slug);
    });

    it('a sent duplicate is 400 naming slug, and creates nothing', async () => {
      await createProduct(api, key, { slug: 'unico' });
      const [products, events] = [
        await countRows(api, 'products', storeId),
        await countRows(api, 'events', storeId),
      ];
      expectError(
        await api.as(key).post('/products', { nome: 'x', preco: 1, slug: 'unico' }),
        400,
        'invalid_request',
        'slug',
      );
      expect(await countRows(api, 'products', storeId)).toBe(products);
      expect(await countRows(api, 'events', storeId)).toBe(events);
    });

    it('is unique per store only: another store may use the same slug', async () => {
      const other = await api.createStore();
      await createProduct(api, key, { slug: 'compartilhado' });
      expect((await createProduct(api, other.key, { slug: 'compartilhado' })).slug).toBe('compartilhado');
      expect((await createProduct(api, other.key, { nome: 'Compartilhado' })).slug).toBe('compartilhado-2');
    });

    it('concurrent creations from one name all get distinct slugs', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          api.as(key).post('/products', { nome: 'Promoção Relâmpago', preco: 5 }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
      expect(new Set(results.map((r) => r.body.slug)).size).toBe(8);
    });
  });

  describe('idempotency', () => {
    it('replays the first answer for the same key and body: one product, one event', async () => {
      const body = { nome: 'Idempotente', preco: 12.5 };
      const headers = { 'idempotency-key': 'create-product-1' };
      const first = await api.as(key).post('/products', body, headers);
      const again = await api.as(key).post('/products', body, headers);
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      const rows = await api.db
        .selectFrom('products')
        .select('id')
        .where('nome', '=', 'Idempotente')
        .execute();
      expect(rows).toHaveLength(1);
      expect(await eventsFor(api, storeId, 'product.created', first.body.id)).toHaveLength(1);
    });

    it('the same key with another body is 409 idempotency_conflict', async () => {
      const headers = { 'idempotency-key': 'create-product-2' };
      expect((await api.as(key).post('/products', { nome: 'A', preco: 1 }, headers)).status).toBe(201);
      expectError(
        await api.as(key).post('/products', { nome: 'B', preco: 1 }, headers),
        409,
        'idempotency_conflict',
      );
    });
  });
});
