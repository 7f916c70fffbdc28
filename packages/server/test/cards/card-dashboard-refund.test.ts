import { beforeAll, expect, it } from 'vitest';
import { memberPerRole } from '../support/dashboard.js';
import { describeEachDatabase } from '../support/test-api.js';
import { payByCard, storeEvents } from './card-test-helpers.js';

/** The dashboard's "Reembolsar" on a card sale is the API's refund: through the card PSP, once. */
describeEachDatabase('Reembolsar a card sale on the dashboard', (api) => {
  const { get, post, signIn } = memberPerRole(api);
  let storeId: string;
  let key: string;
  beforeAll(async () => {
    ({ storeId, key } = await api.createStore({ name: 'Loja Cartão' }));
    await signIn(storeId);
  });

  it('refunds the card payment and the sale, with card_payment.refunded then sale.refunded', async () => {
    const payment = (await payByCard(api, key, { amount: 150, card: { token: 'tok_test_approved' } })).body;
    const sale = payment.sale_id as string;
    expect((await get('owner', `/dashboard/vendas/${sale}`)).text).toContain('>Reembolsar</button>');
    const done = await post('owner', `/dashboard/vendas/${sale}/reembolso`);
    expect(done.status).toBe(303);
    expect((await api.as(key).get(`/sales/${sale}`)).body).toMatchObject({
      status: 'refunded',
      refund: { status: 'succeeded' },
    });
    expect((await api.as(key).get(`/payments/card/${payment.id}`)).body.status).toBe('refunded');
    expect((await storeEvents(api, storeId)).map((e) => e.type)).toEqual([
      'card_payment.approved',
      'sale.approved',
      'card_payment.refunded',
      'sale.refunded',
    ]);
  });

  it('a charged-back sale is not refunded, and the page says why in Portuguese', async () => {
    const payment = (await payByCard(api, key, { amount: 150, card: { token: 'tok_test_approved' } })).body;
    await api.as(key).post(`/payments/card/${payment.id}/simulate_chargeback`);
    const refused = await post('owner', `/dashboard/vendas/${payment.sale_id}/reembolso`);
    expect(refused.text).toContain('contestou o pagamento com cartão');
    expect((await api.as(key).get(`/sales/${payment.sale_id}`)).body.status).toBe('charged_back');
  });
});
