import { beforeAll, expect, it, vi } from 'vitest';
import type * as ProductCode from '../../src/domain/catalogue/product-code.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { countRows, createProduct, eventsFor } from './support.js';

/** Codes handed out next by the generator; once empty, real random codes again. */
const forced = vi.hoisted(() => ({ codes: [] as string[] }));

vi.mock('../../src/domain/catalogue/product-code.js', async (importOriginal) => {
  const real = await importOriginal<typeof ProductCode>();
  return { newProductCode: () => forced.codes.shift() ?? real.newProductCode() };
});

describeEachDatabase('products: codigo collisions', (api) => {
  let key: string;
  let storeId: string;

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore());
    forced.codes = ['PRD-AAAAAAAA'];
    expect((await createProduct(api, key)).codigo).toBe('PRD-AAAAAAAA');
  });

  it('a generated codigo already used in the store is drawn again; one product, one event', async () => {
    forced.codes = ['PRD-AAAAAAAA', 'PRD-AAAAAAAA', 'PRD-BBBBBBBB'];
    const [products, events] = [
      await countRows(api, 'products', storeId),
      await countRows(api, 'events', storeId),
    ];
    const product = await createProduct(api, key);
    expect(product.codigo).toBe('PRD-BBBBBBBB');
    expect(await countRows(api, 'products', storeId)).toBe(products + 1);
    expect(await countRows(api, 'events', storeId)).toBe(events + 1);
    expect(await eventsFor(api, storeId, 'product.created', product.id)).toHaveLength(1);
  });

  it('is unique per store only: another store may hold the same codigo', async () => {
    const other = await api.createStore();
    forced.codes = ['PRD-AAAAAAAA'];
    expect((await createProduct(api, other.key)).codigo).toBe('PRD-AAAAAAAA');
  });

  it('gives up after a bounded number of draws with a 500, leaving no row and no event', async () => {
    forced.codes = Array(10).fill('PRD-AAAAAAAA');
    const [products, events] = [
      await countRows(api, 'products', storeId),
      await countRows(api, 'events', storeId),
    ];
    expectError(await api.as(key).post('/products', { nome: 'Azarado', preco: 1 }), 500, 'internal_error');
    expect(forced.codes).toEqual([]);
    expect(await countRows(api, 'products', storeId)).toBe(products);
    expect(await countRows(api, 'events', storeId)).toBe(events);
  });
});
