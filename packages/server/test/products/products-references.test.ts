import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { countRows, createProduct, eventsFor, expectRefusedOnCreateAndPatch, productRow } from './support.js';

const MISSING = '00000000-0000-4000-8000-000000000000';

describeEachDatabase('products: checkout and order-bump references, store isolation', (api) => {
  let key: string;
  let storeId: string;
  let defaultCheckoutId: string;
  let other: { key: string; storeId: string; defaultCheckoutId: string };

  beforeAll(async () => {
    ({ key, storeId, defaultCheckoutId } = await api.createStore());
    other = await api.createStore({ name: 'Other store' });
  });

  const newCheckout = async (name = 'Checkout') => (await api.as(key).post('/checkouts', { name })).body;

  /** A rejected reference on create and on PATCH: 400 naming the param, and nothing written. */
  async function expectRefused(body: Record<string, unknown>, param: string) {
    const target = await createProduct(api, key);
    await expectRefusedOnCreateAndPatch(api, { key, storeId, target }, body, param);
  }

  describe('checkout_id', () => {
    it('takes a non-archived checkout of the store, the default one included, on create and PATCH', async () => {
      const checkout = await newCheckout();
      const product = await createProduct(api, key, { checkout_id: checkout.id });
      expect(product.checkout_id).toBe(checkout.id);
      expect((await productRow(api, product.id))?.checkout_id).toBe(checkout.id);
      const moved = await api.as(key).patch(`/products/${product.id}`, { checkout_id: defaultCheckoutId });
      expect(moved.body.checkout_id).toBe(defaultCheckoutId);
      const cleared = await api.as(key).patch(`/products/${product.id}`, { checkout_id: null });
      expect(cleared.body.checkout_id).toBeNull();
      expect((await productRow(api, product.id))?.checkout_id).toBeNull();
    });

    it('refuses an archived checkout', async () => {
      const checkout = await newCheckout('Arquivado');
      await api.as(key).post(`/checkouts/${checkout.id}/archive`);
      await expectRefused({ checkout_id: checkout.id }, 'checkout_id');
    });

    it("refuses another store's checkout, their default included, and an unknown one", async () => {
      const theirs = (await api.as(other.key).post('/checkouts', { name: 'Deles' })).body;
      await expectRefused({ checkout_id: theirs.id }, 'checkout_id');
      await expectRefused({ checkout_id: other.defaultCheckoutId }, 'checkout_id');
      await expectRefused({ checkout_id: MISSING }, 'checkout_id');
    });
  });

  describe('order_bump_product_id', () => {
    it('takes another product of the store, and null', async () => {
      const bump = await createProduct(api, key);
      const product = await createProduct(api, key, {
        order_bump_enabled: true,
        order_bump_product_id: bump.id,
      });
      expect(product.order_bump_product_id).toBe(bump.id);
      const cleared = await api.as(key).patch(`/products/${product.id}`, { order_bump_product_id: null });
      expect(cleared.body.order_bump_product_id).toBeNull();
    });

    it('refuses the product itself', async () => {
      const product = await createProduct(api, key);
      expectError(
        await api.as(key).patch(`/products/${product.id}`, { order_bump_product_id: product.id }),
        400,
        'invalid_request',
        'order_bump_product_id',
      );
      expect((await productRow(api, product.id))?.order_bump_product_id).toBeNull();
    });

    it("refuses another store's product and an unknown one", async () => {
      const theirs = await createProduct(api, other.key);
      await expectRefused({ order_bump_product_id: theirs.id }, 'order_bump_product_id');
      await expectRefused({ order_bump_product_id: MISSING }, 'order_bump_product_id');
    });
  });

  describe('POST /checkouts with product_id links the product', () => {
    it('links it in the same write and records product.updated', async () => {
      const product = await createProduct(api, key);
      const res = await api.as(key).post('/checkouts', { name: 'Com produto', product_id: product.id });
      expect(res.status).toBe(201);
      expect(res.body).not.toHaveProperty('product_id');
      expect((await productRow(api, product.id))?.checkout_id).toBe(res.body.id);
      expect((await api.as(key).get(`/products/${product.id}`)).body.checkout_id).toBe(res.body.id);
      const updates = await eventsFor(api, storeId, 'product.updated', product.id);
      expect(updates.map((e) => e.data.object.checkout_id)).toEqual([res.body.id]);
    });

    it("another store's product or an unknown one is 404, and nothing is created", async () => {
      const theirs = await createProduct(api, other.key);
      for (const productId of [theirs.id, MISSING]) {
        const [checkouts, events] = [
          await countRows(api, 'checkouts', storeId),
          await countRows(api, 'events', storeId),
        ];
        expectError(
          await api.as(key).post('/checkouts', { name: 'Não', product_id: productId }),
          404,
          'not_found',
        );
        expect(await countRows(api, 'checkouts', storeId)).toBe(checkouts);
        expect(await countRows(api, 'events', storeId)).toBe(events);
      }
      expect((await productRow(api, theirs.id))?.checkout_id).toBeNull();
    });

    it('a malformed product_id is 400 naming it', async () => {
      expectError(
        await api.as(key).post('/checkouts', { name: 'x', product_id: 'abc' }),
        400,
        'invalid_request',
        'product_id',
      );
    });
  });

  describe('archiving a checkout unlinks its products in the same write', () => {
    it('sets their checkout_id to null, with product.updated each; other products keep theirs', async () => {
      const archived = await newCheckout('Vai sair');
      const kept = await newCheckout('Fica');
      const linked = [
        await createProduct(api, key, { checkout_id: archived.id }),
        await createProduct(api, key, { checkout_id: archived.id, ativo: false }),
      ];
      const elsewhere = await createProduct(api, key, { checkout_id: kept.id });
      const res = await api.as(key).post(`/checkouts/${archived.id}/archive`);
      expect(res.status).toBe(200);
      for (const product of linked) {
        const row = await productRow(api, product.id);
        expect(row?.checkout_id).toBeNull();
        const updates = await eventsFor(api, storeId, 'product.updated', product.id);
        expect(updates).toHaveLength(1);
        expect(updates[0].data.object).toEqual({ ...product, checkout_id: null });
      }
      expect((await productRow(api, elsewhere.id))?.checkout_id).toBe(kept.id);
      // Archiving again changes nothing and records nothing more.
      await api.as(key).post(`/checkouts/${archived.id}/archive`);
      expect(await eventsFor(api, storeId, 'product.updated', linked[0].id)).toHaveLength(1);
    });

    it('a checkout linked through POST /checkouts is unlinked too', async () => {
      const product = await createProduct(api, key);
      const checkout = (await api.as(key).post('/checkouts', { name: 'Ligado', product_id: product.id }))
        .body;
      await api.as(key).post(`/checkouts/${checkout.id}/archive`);
      expect((await api.as(key).get(`/products/${product.id}`)).body.checkout_id).toBeNull();
    });
  });

  it("another store's products never show up, and theirs stay untouched by our writes", async () => {
    const theirs = await createProduct(api, other.key, { slug: 'deles' });
    const before = await productRow(api, theirs.id);
    const ours = await createProduct(api, key, { slug: 'deles' });
    expect(ours.slug).toBe('deles');
    const list = await api.as(key).get('/products?limit=100&slug=deles');
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([ours.id]);
    expect(await productRow(api, theirs.id)).toEqual(before);
  });
});
