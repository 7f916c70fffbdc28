import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';

const buyer = { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25' };

describeEachDatabase('POST /payments/card through the simulated provider', (api) => {
  let key: string;
  beforeAll(async () => {
    ({ key } = await api.createStore());
  });

  const pay = (body: Record<string, unknown>, idempotencyKey: string | null = `k-${Math.random()}`) =>
    api
      .as(key)
      .post(
        '/payments/card',
        { amount: 997, customer: buyer, card: { token: 'tok_test_approved' }, ...body },
        idempotencyKey === null ? undefined : { 'idempotency-key': idempotencyKey },
      );

  it('approves, with the sale in the same answer’s transaction', async () => {
    const res = await pay({ installments: 12 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'card_payment',
      status: 'approved',
      amount: 997,
      installments: 12,
      // The price table at the default 2.99 % a month: 997 · i / (1 − (1 + i)^−12), cents half-up.
      installment_amount: 100.1,
      total_amount: 1201.2,
      card: { brand: 'visa', last4: '4242' },
      provider: 'simulated',
      livemode: false,
      decline: null,
      next_action: null,
    });
    const sale = (await api.as(key).get(`/sales/${res.body.sale_id}`)).body;
    expect(sale).toMatchObject({
      payment_method: 'card',
      card_payment_id: res.body.id,
      installments: 12,
      amount: 997,
      status: 'approved',
    });
  });

  it('requires an Idempotency-Key, and a retry with it charges once', async () => {
    expect(expectError(await pay({}, null), 400, 'invalid_request').param).toBe('Idempotency-Key');
    const first = await pay({}, 'same-key');
    const again = await pay({}, 'same-key');
    expect(again.body.id).toBe(first.body.id);
    const list = (await api.as(key).get('/payments/card?limit=100')).body.data as Array<{ id: string }>;
    expect(list.filter((p) => p.id === first.body.id)).toHaveLength(1);
  });

  it('declines with the normalised code, requires_action for 3-D Secure, and refuses unknown tokens', async () => {
    const declined = await pay({ card: { token: 'tok_test_declined_insufficient_funds' } });
    expect(declined.body).toMatchObject({
      status: 'declined',
      sale_id: null,
      decline: { code: 'insufficient_funds', provider_code: null },
    });
    const challenge = await pay({ card: { token: 'tok_test_3ds' } });
    expect(challenge.body.status).toBe('requires_action');
    expect(challenge.body.next_action.url).toMatch(/\/p\/3ds\/[A-Za-z0-9_-]{43}$/);
    const done = await api
      .as(key)
      .post(`/payments/card/${challenge.body.id}/simulate_3ds`, { result: 'authenticated' });
    expect(done.body).toMatchObject({ status: 'approved', next_action: null });
    expect(done.body.sale_id).toEqual(expect.any(String));
    expect(expectError(await pay({ card: { token: 'tok_live_x' } }), 400, 'invalid_request').param).toBe(
      'card.token',
    );
    expect(
      expectError(await pay({ card: { token: '4111111111111111' } }), 400, 'invalid_request').param,
    ).toBe('card.token');
    expect(
      expectError(
        await pay({ card: { token: 'tok_test_approved', number: '4111111111111111' } }),
        400,
        'invalid_request',
      ).param,
    ).toMatch(/^card/);
  });

  it('offers installments by the store’s table and refuses one it does not offer', async () => {
    const options = (await api.as(key).get('/payments/card/installments?amount=10')).body;
    expect(options.options.map((o: { installments: number }) => o.installments)).toEqual([1, 2]);
    expect(expectError(await pay({ amount: 10, installments: 3 }), 400, 'invalid_request').param).toBe(
      'installments',
    );
  });
});
