import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import type { ApiResponse } from '../support/test-api.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { PRODUCT_KEYS, createProduct } from './support.js';

const FIELDS = [
  'nome',
  'preco',
  'slug',
  'descricao',
  'imagem',
  'ativo',
  'link_acesso',
  'garantia',
  'checkout_id',
  'order_bump_enabled',
  'order_bump_product_id',
  'order_bump_title',
  'order_bump_description',
  'delivery_email_subject',
  'delivery_email_body',
];

/** Any UTF-16 code unit, U+0000 and lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

/** Values aimed at the edges of every rule, mixed with anything JSON can carry. */
function valueArbitrary(ids: string[]) {
  return fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.string({ maxLength: 130 }),
    fc.string({ unit: codeUnit, maxLength: 20 }),
    fc.string({ unit: 'grapheme', minLength: 115, maxLength: 125 }),
    fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}$/),
    fc.double({ min: -10, max: 2_000_000, noNaN: true }),
    fc.integer({ min: 0, max: 100_000_000 }).map((cents) => cents / 100),
    fc.constantFrom(0, 1_000_000, 1_000_000.01, -0.01, 19.999, '10', 1e308, -0),
    fc.boolean(),
    fc.constant(null),
    fc.uuid(),
    fc.constantFrom(...ids),
  );
}

/** Ids the bodies may carry: usable checkouts and order bumps, and ones that must be refused. */
interface Refs {
  checkouts: string[];
  bumps: string[];
  unusable: string[];
}

/** Values within the rules, so the success path sees random data too (collisions still give 400). */
function validFields(refs: Refs) {
  const text = (maxLength: number) => fc.option(fc.string({ unit: 'grapheme', maxLength }), { nil: null });
  return fc.record(
    {
      nome: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
      preco: fc.integer({ min: 0, max: 100_000_000 }).map((cents) => cents / 100),
      slug: fc.stringMatching(/^[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,3}$/),
      descricao: text(200),
      imagem: fc.option(fc.webUrl({ validSchemes: ['http', 'https'] }), { nil: null }),
      ativo: fc.boolean(),
      link_acesso: text(100),
      garantia: text(100),
      checkout_id: fc.option(fc.constantFrom(...refs.checkouts), { nil: null }),
      order_bump_enabled: fc.boolean(),
      order_bump_product_id: fc.option(fc.constantFrom(...refs.bumps), { nil: null }),
      order_bump_title: text(120),
      order_bump_description: text(100),
      delivery_email_subject: text(160),
      delivery_email_body: text(300),
    },
    { requiredKeys: [] },
  );
}

function bodyArbitrary(refs: Refs, required: boolean) {
  const ids = [...refs.checkouts, ...refs.bumps, ...refs.unusable];
  const known = fc.dictionary(fc.constantFrom(...FIELDS), valueArbitrary(ids), { maxKeys: 8 });
  const extra = fc.dictionary(fc.string({ maxLength: 12 }), valueArbitrary(ids), { maxKeys: 2 });
  const base = required
    ? fc.record({ nome: fc.string({ minLength: 1, maxLength: 40 }), preco: fc.constant(9.9) })
    : fc.constant({});
  return fc.oneof(
    { weight: 4, arbitrary: fc.tuple(base, validFields(refs)).map(([b, v]) => ({ ...b, ...v })) },
    { weight: 4, arbitrary: fc.tuple(base, known).map(([b, k]) => ({ ...b, ...k })) },
    { weight: 1, arbitrary: fc.tuple(base, known, extra).map(([b, k, e]) => ({ ...b, ...k, ...e })) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
}

/** 2xx with exactly the product's keys echoing what was sent, or 400 with the error envelope. */
function checkAnswer(res: ApiResponse, body: unknown, success: number) {
  expect(res.status, res.text).toBeLessThan(500);
  if (res.status !== success) {
    expectError(res, 400, 'invalid_request');
    return;
  }
  expect(Object.keys(res.body).sort()).toEqual(PRODUCT_KEYS);
  // What the server received: JSON drops what it cannot carry (-0 becomes 0).
  const sent = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
  for (const [field, value] of Object.entries(sent)) {
    expect(res.body[field], field).toEqual(value);
  }
}

describeEachDatabase('products: property-based, random and malformed bodies', (api) => {
  let key: string;
  let refs: Refs;
  let targetId: string;

  beforeAll(async () => {
    let defaultCheckoutId: string;
    ({ key, defaultCheckoutId } = await api.createStore());
    const other = await api.createStore();
    targetId = (await createProduct(api, key)).id;
    const checkout = (await api.as(key).post('/checkouts', { name: 'Prop' })).body;
    const archived = (await api.as(key).post('/checkouts', { name: 'Archived' })).body;
    await api.as(key).post(`/checkouts/${archived.id}/archive`);
    refs = {
      checkouts: [checkout.id, defaultCheckoutId],
      bumps: [(await createProduct(api, key)).id],
      // The target itself is refused only as its own order bump (PATCH); as a checkout, always.
      unusable: [targetId, archived.id, other.defaultCheckoutId, (await createProduct(api, other.key)).id],
    };
  });

  it('POST /products answers 201 or 400 with the envelope, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArbitrary(refs, true), async (body) => {
        checkAnswer(await api.as(key).post('/products', body), body, 201);
      }),
      { numRuns: 150 },
    );
  });

  it('PATCH /products/{id} answers 200 or 400 with the envelope, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(bodyArbitrary(refs, false), async (body) => {
        checkAnswer(await api.as(key).patch(`/products/${targetId}`, body), body, 200);
      }),
      { numRuns: 150 },
    );
  });
});
