import { expect, it } from 'vitest';
import { Storefront } from '../../../client/src/index.js';
import { describeEachDatabase } from '../support/test-api.js';

/**
 * Reusing an external_id answers 200 with the existing charge (the contract), and says so when what
 * was sent differs from it: the `External-Id-Mismatch` header names the fields.
 */
describeEachDatabase('external_id reuse with other values', (api) => {
  const charges = async (externalId: string) =>
    api.db
      .selectFrom('pix_charges')
      .select(['id', 'amount_cents'])
      .where('external_id', '=', externalId)
      .execute();

  it('names the differing fields on the 200, and is absent on a 201 and on an identical retry', async () => {
    const { key } = await api.createStore();
    const as = api.as(key);
    const body = { amount: 10, external_id: 'pedido-1', description: 'Pedido 1', metadata: { a: '1' } };
    const created = await as.post('/payments/pix', body);
    expect(created.status).toBe(201);
    expect(created.headers.get('external-id-mismatch')).toBeNull();

    const same = await as.post('/payments/pix', body);
    expect(same.status).toBe(200);
    expect(same.headers.get('external-id-mismatch')).toBeNull();

    const other = await as.post('/payments/pix', { ...body, amount: 12.5 });
    expect(other.status).toBe(200);
    expect(other.body).toEqual(created.body); // the existing charge, unchanged
    expect(other.headers.get('external-id-mismatch')).toBe('amount');

    const several = await as.post('/payments/pix', {
      amount: 11,
      external_id: 'pedido-1',
      description: 'Outro',
      metadata: { a: '2' },
      customer: { email: 'ana@example.com' },
    });
    expect(several.headers.get('external-id-mismatch')).toBe('amount, description, customer, metadata');
    // Fields not sent are not compared.
    expect(
      (await as.post('/payments/pix', { amount: 10, external_id: 'pedido-1' })).headers.get(
        'external-id-mismatch',
      ),
    ).toBeNull();

    expect(await charges('pedido-1')).toEqual([{ id: created.body.id, amount_cents: 1000 }]);
  });

  it('the official client exposes it on the returned charge', async () => {
    const { key } = await api.createStore();
    const client = new Storefront({ apiKey: key, baseUrl: api.baseUrl });
    const first = await client.pix.create({ amount: 20, external_id: 'pedido-2' });
    expect(first.lastResponse.statusCode).toBe(201);
    const again = await client.pix.create({ amount: 25, external_id: 'pedido-2' });
    expect(again.id).toBe(first.id);
    expect(again.amount).toBe(20);
    expect(again.lastResponse.statusCode).toBe(200);
    expect(again.lastResponse.headers['external-id-mismatch']).toBe('amount');
    expect(again.lastResponse.requestId).toMatch(/^req_/);
  });
});
