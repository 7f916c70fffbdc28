import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { createProduct, expectRefusedOnCreateAndPatch, productRow } from './support.js';

/** The documented limits, in characters: [field, minimum, maximum, nullable]. */
const LENGTHS: Array<[string, number, number, boolean]> = [
  ['nome', 1, 120, false],
  ['descricao', 0, 4000, true],
  ['link_acesso', 0, 1000, true],
  ['garantia', 0, 500, true],
  ['order_bump_title', 0, 120, true],
  ['order_bump_description', 0, 500, true],
  ['delivery_email_subject', 0, 160, true],
  ['delivery_email_body', 0, 3000, true],
];

describeEachDatabase('products: rules and limits', (api) => {
  let key: string;
  let storeId: string;
  let target: { id: string };

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
    target = await createProduct(api, key);
  });

  /** Every rejected body fails the same on create and on PATCH, naming the param, writing nothing. */
  const expectRejected = (body: Record<string, unknown>, param: string) =>
    expectRefusedOnCreateAndPatch(api, { key, storeId, target }, body, param);

  async function expectAccepted(body: Record<string, unknown>) {
    const created = await api.as(key).post('/products', { nome: 'Ok', preco: 1, ...body });
    expect(created.status, created.text).toBe(201);
    const patched = await api.as(key).patch(`/products/${target.id}`, body);
    expect(patched.status, patched.text).toBe(200);
    return { created: created.body, patched: patched.body };
  }

  describe.each(LENGTHS)('%s is %i-%i characters', (field, min, max, nullable) => {
    it('accepts the maximum, counted in characters (an emoji is one), and stores it', async () => {
      for (const value of ['x'.repeat(max), '🛒'.repeat(max), 'ç'.repeat(max)]) {
        const { created, patched } = await expectAccepted({ [field]: value });
        expect(created[field]).toBe(value);
        expect(patched[field]).toBe(value);
        expect((await productRow(api, created.id))?.[field as 'nome']).toBe(value);
      }
    });
    it('rejects one past the maximum', async () => {
      await expectRejected({ [field]: 'x'.repeat(max + 1) }, field);
      await expectRejected({ [field]: '🛒'.repeat(max + 1) }, field);
    });
    it(`${min === 0 ? 'accepts' : 'rejects'} the empty string`, async () => {
      if (min === 0) await expectAccepted({ [field]: '' });
      else await expectRejected({ [field]: '' }, field);
    });
    it('rejects U+0000 and a lone surrogate, which the databases cannot keep as sent', async () => {
      await expectRejected({ [field]: 'a\u0000b' }, field);
      await expectRejected({ [field]: 'a\ud800b' }, field);
    });
    it(`${nullable ? 'accepts' : 'rejects'} null, and rejects a number`, async () => {
      if (nullable) expect((await expectAccepted({ [field]: null })).created[field]).toBeNull();
      else await expectRejected({ [field]: null }, field);
      await expectRejected({ [field]: 7 }, field);
    });
  });

  describe('imagem is an absolute http(s) URL of at most 1000 characters, like checkout images', () => {
    const longest = `https://cdn.example.com/${'a'.repeat(1000 - 24)}`;
    it('accepts https:// and http:// URLs up to 1000 characters, and null', async () => {
      for (const imagem of [
        'https://cdn.example.com/curso.png',
        'http://img.example.net/a.jpg?x=1',
        longest,
      ]) {
        const { created, patched } = await expectAccepted({ imagem });
        expect(created.imagem).toBe(imagem);
        expect(patched.imagem).toBe(imagem);
      }
      expect((await expectAccepted({ imagem: null })).created.imagem).toBeNull();
    });
    it('rejects javascript:, data:, ftp:, a relative or empty value and one past 1000 characters', async () => {
      for (const imagem of [
        'javascript:alert(1)',
        'JAVASCRIPT:alert(1)',
        'data:image/svg+xml,<svg onload=alert(1)>',
        'ftp://cdn.example.com/a.png',
        '//cdn.example.com/a.png',
        '/a.png',
        ' https://cdn.example.com/a.png',
        '',
        `${longest}a`,
        'https://x/\u0000',
      ]) {
        await expectRejected({ imagem }, 'imagem');
      }
    });
    it('says why in the error message', async () => {
      const res = await api
        .as(key)
        .post('/products', { nome: 'X', preco: 1, imagem: 'data:image/png;base64,AA' });
      expectError(res, 400, 'invalid_request', 'imagem');
      expect(res.body.error.message).toContain('must be an http:// or https:// URL');
    });
  });

  it('nome needs a visible character', async () => {
    await expectRejected({ nome: '   ' }, 'nome');
    expect((await expectAccepted({ nome: ' a ' })).created.nome).toBe(' a ');
  });

  describe('preco is 0 to 1,000,000 with at most 2 decimals, kept as integer cents', () => {
    for (const [preco, cents] of [
      [0, 0],
      [1_000_000, 100_000_000],
      [19.99, 1999],
      [0.01, 1],
      [0.29, 29],
      [0.3, 30],
      [999_999.99, 99_999_999],
    ] as const) {
      it(`accepts ${preco} and stores ${cents} cents`, async () => {
        const { created, patched } = await expectAccepted({ preco });
        expect(created.preco).toBe(preco);
        expect(patched.preco).toBe(preco);
        expect((await productRow(api, created.id))?.preco_cents).toBe(cents);
      });
    }
    // More decimals are refused even when they hide in float noise a tolerant check would let through.
    for (const preco of [
      1_000_000.01,
      -0.01,
      19.999,
      0.001,
      19.99000000001,
      5e-324,
      0.1 + 0.2,
      '10',
      null,
      true,
      1e21,
    ]) {
      it(`rejects ${JSON.stringify(preco)}`, async () => {
        await expectRejected({ preco }, 'preco');
      });
    }
  });

  describe('slug: 1-60 characters, lowercase a-z0-9 words joined by single dashes', () => {
    it('accepts 60 characters and the documented shape', async () => {
      // Slugs are unique per store, so creation and PATCH each take their own.
      expect((await createProduct(api, key, { slug: 's'.repeat(60) })).slug).toBe('s'.repeat(60));
      const patched = await api.as(key).patch(`/products/${target.id}`, { slug: 't'.repeat(60) });
      expect(patched.body.slug).toBe('t'.repeat(60));
      expect((await createProduct(api, key, { slug: 'a1-b2-c3' })).slug).toBe('a1-b2-c3');
    });
    for (const slug of ['s'.repeat(61), '', 'Curso', 'a--b', '-a', 'a-', 'a_b', 'violão', 'a b', 'a.b']) {
      it(`rejects ${JSON.stringify(slug)}`, async () => {
        await expectRejected({ slug }, 'slug');
      });
    }
    it('rejects null (a product always has a slug)', async () => {
      await expectRejected({ slug: null }, 'slug');
    });
  });

  describe('booleans and ids', () => {
    for (const field of ['ativo', 'order_bump_enabled']) {
      it(`${field} takes only true or false`, async () => {
        for (const value of ['true', 1, 0, null]) await expectRejected({ [field]: value }, field);
      });
    }
    for (const field of ['checkout_id', 'order_bump_product_id']) {
      it(`${field} must be a uuid or null`, async () => {
        for (const value of ['abc', 12, '', '00000000-0000-0000-0000-00000000000g'])
          await expectRejected({ [field]: value }, field);
      });
    }
  });

  describe('fields outside the spec', () => {
    for (const field of [
      'codigo',
      'id',
      'object',
      'created_at',
      'updated_at',
      'preco_cents',
      'store_id',
      'Nome',
    ]) {
      it(`rejects ${field}, naming it`, async () => {
        await expectRejected({ [field]: 'PRD-AAAAAAAA' }, field);
      });
    }
  });

  it('creation requires nome and preco', async () => {
    expectError(await api.as(key).post('/products', { preco: 1 }), 400, 'invalid_request', 'nome');
    expectError(await api.as(key).post('/products', { nome: 'x' }), 400, 'invalid_request', 'preco');
  });

  it('a body that is not an object is 400', async () => {
    for (const rawBody of ['[]', '"x"', '3', 'null', '{bad json']) {
      for (const [method, path] of [
        ['POST', '/products'],
        ['PATCH', `/products/${target.id}`],
      ] as const) {
        const res = await api.request(method, path, {
          key,
          rawBody,
          headers: { 'content-type': 'application/json' },
        });
        expectError(res, 400, 'invalid_request');
      }
    }
  });
});
