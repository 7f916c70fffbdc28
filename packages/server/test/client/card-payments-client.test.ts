import { beforeAll, expect, it } from 'vitest';
import { Storefront, ValidationError, type CardPayment } from '../../../client/src/index.js';
import { describeEachDatabase } from '../support/test-api.js';

const customer = { name: 'Ana Souza', email: 'ana@example.com', document: '529.982.247-25' };

/**
 * The official client's `cardPayments` against the real service, in test mode: a store with no
 * test PSP takes cards through the simulated provider, whose tokens choose the outcome.
 */
describeEachDatabase('official client: card payments', (api) => {
  let client: Storefront;
  let key: string;
  let storeId: string;

  beforeAll(async () => {
    const store = await api.createStore();
    key = store.key;
    storeId = store.storeId;
    client = new Storefront({ apiKey: key, baseUrl: api.baseUrl });
  });

  const pay = (token: string, extra: { amount?: number; installments?: number; external_id?: string } = {}) =>
    client.cardPayments.create({ amount: extra.amount ?? 997, card: { token }, customer, ...extra });

  it('offers the price table: R$ 997 in 12x at 2.99% a month is 12 × R$ 100,10', async () => {
    const table = await client.cardPayments.installments({ amount: 997 });
    expect(table).toMatchObject({ object: 'installment_options', amount: 997 });
    expect(table.options).toHaveLength(12);
    expect(table.options[0]).toEqual({
      installments: 1,
      installment_amount: 997,
      total_amount: 997,
      interest_free: true,
    });
    expect(table.options[11]).toEqual({
      installments: 12,
      installment_amount: 100.1,
      total_amount: 1201.2,
      interest_free: false,
    });
  });

  it('approves a card in 12x: the payment carries the interest, its sale the price', async () => {
    const payment = await pay('tok_test_approved', { installments: 12, external_id: 'pedido-card-1' });
    expect(payment.lastResponse.statusCode).toBe(201);
    expect(payment).toMatchObject({
      object: 'card_payment',
      status: 'approved',
      provider: 'simulated',
      amount: 997,
      installments: 12,
      installment_amount: 100.1,
      total_amount: 1201.2,
      decline: null,
      next_action: null,
      livemode: false,
      external_id: 'pedido-card-1',
    });
    expect(payment.id).toMatch(/^card_/);
    expect(payment.card).toMatchObject({
      brand: expect.any(String),
      last4: expect.stringMatching(/^\d{4}$/),
    });
    expect(payment.approved_at).toEqual(expect.any(String));

    const sale = await client.sales.retrieve(payment.sale_id!);
    expect(sale).toMatchObject({
      status: 'approved',
      amount: 997,
      payment_method: 'card',
      card_payment_id: payment.id,
      installments: 12,
      pix_charge_id: null,
    });
    expect(await client.cardPayments.retrieve(payment.id)).toMatchObject({
      id: payment.id,
      status: 'approved',
    });
  });

  it('always sends an Idempotency-Key: a repeated key answers the same payment, a bare request is refused', async () => {
    // No key given: the client generated one, or the service would have refused the request.
    expect((await pay('tok_test_approved')).status).toBe('approved');
    const keyed = await client.cardPayments.create(
      { amount: 50, card: { token: 'tok_test_approved' }, customer },
      { idempotencyKey: 'pedido-card-idem' },
    );
    const again = await client.cardPayments.create(
      { amount: 50, card: { token: 'tok_test_approved' }, customer },
      { idempotencyKey: 'pedido-card-idem' },
    );
    expect(again.id).toBe(keyed.id);
    expect(again.sale_id).toBe(keyed.sale_id);

    const bare = await api.request('POST', '/payments/card', {
      key,
      body: { amount: 50, card: { token: 'tok_test_approved' }, customer },
    });
    expect(bare.status).toBe(400);
  });

  it('tells a decline by its normalised code and message', async () => {
    const payment = await pay('tok_test_declined_insufficient_funds');
    expect(payment).toMatchObject({
      status: 'declined',
      sale_id: null,
      decline: { code: 'insufficient_funds', message: expect.any(String) },
    });
    expect(payment.declined_at).toEqual(expect.any(String));
  });

  it('3-D Secure: requires_action with a URL, then authenticated or failed', async () => {
    const challenged = await pay('tok_test_3ds');
    expect(challenged.status).toBe('requires_action');
    expect(challenged.next_action).toEqual({
      type: 'three_d_secure',
      url: expect.stringMatching(/^https?:\/\//),
    });
    const authenticated = await client.cardPayments.simulate3ds(challenged.id, { result: 'authenticated' });
    expect(authenticated).toMatchObject({
      status: 'approved',
      next_action: null,
      sale_id: expect.any(String),
    });

    const other = await pay('tok_test_3ds');
    const failed = await client.cardPayments.simulate3ds(other.id, { result: 'failed' });
    expect(failed).toMatchObject({ status: 'declined', decline: { code: 'authentication_failed' } });
  });

  it('processing until settled, approved or declined', async () => {
    const pending = await pay('tok_test_processing');
    expect(pending.status).toBe('processing');
    const approved = await client.cardPayments.simulateSettlement(pending.id, { result: 'approved' });
    expect(approved.status).toBe('approved');

    const other = await pay('tok_test_processing');
    const declined = await client.cardPayments.simulateSettlement(other.id, { result: 'declined' });
    expect(declined).toMatchObject({ status: 'declined', decline: { code: 'issuer_declined' } });
    await expect(
      client.cardPayments.simulateSettlement(other.id, { result: 'approved' }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('refunds a card sale, and a chargeback marks another sale charged_back', async () => {
    const refundable = await pay('tok_test_approved', { amount: 120 });
    const refunded = await client.sales.refund(refundable.sale_id!);
    expect(refunded.status).toBe('refunded');
    expect((await client.cardPayments.retrieve(refundable.id)).status).toBe('refunded');

    const disputed = await pay('tok_test_approved', { amount: 80 });
    await client.cardPayments.simulateChargeback(disputed.id);
    expect(await client.sales.retrieve(disputed.sale_id!)).toMatchObject({ status: 'charged_back' });

    const types = new Set<string>();
    for await (const event of client.events.list({ limit: 100 })) types.add(event.type);
    for (const type of [
      'card_payment.approved',
      'card_payment.declined',
      'card_payment.requires_action',
      'card_payment.refunded',
      'sale.charged_back',
    ]) {
      expect(types).toContain(type);
    }
  });

  it('lists by status and external id, and pages through every payment with for await', async () => {
    const declined = await client.cardPayments.list({ status: 'declined', limit: 100 });
    expect(declined.data.length).toBeGreaterThan(0);
    expect(declined.data.every((p) => p.status === 'declined')).toBe(true);

    const byExternal = await client.cardPayments.list({ external_id: 'pedido-card-1' });
    expect(byExternal.data.map((p) => p.external_id)).toEqual(['pedido-card-1']);

    const all: CardPayment[] = [];
    for await (const payment of client.cardPayments.list({ limit: 2 })) all.push(payment);
    const rows = await api.db
      .selectFrom('card_payments')
      .select('id')
      .where('store_id', '=', storeId)
      .execute();
    expect(all.length).toBe(rows.length);
    expect(new Set(all.map((p) => p.id)).size).toBe(all.length);
  });

  it("follows the store's installment settings and counts card sales apart in analytics", async () => {
    const store = await api.createStore();
    const own = new Storefront({ apiKey: store.key, baseUrl: api.baseUrl });
    const updated = await own.store.update({ card: { max_installments: 6, interest_free_installments: 3 } });
    expect(updated.card).toMatchObject({ max_installments: 6, interest_free_installments: 3 });

    const table = await own.cardPayments.installments({ amount: 997 });
    expect(table.options.map((o) => o.installments)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(table.options[2]).toEqual({
      installments: 3,
      installment_amount: 332.33,
      total_amount: 997,
      interest_free: true,
    });
    await expect(
      own.cardPayments.create({
        amount: 997,
        installments: 7,
        card: { token: 'tok_test_approved' },
        customer,
      }),
    ).rejects.toBeInstanceOf(ValidationError);

    await own.cardPayments.create({
      amount: 997,
      installments: 6,
      card: { token: 'tok_test_approved' },
      customer,
    });
    const charge = await own.pix.create({ amount: 12.5 });
    await own.pix.simulatePayment(charge.id);
    const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10); // São Paulo, UTC−3
    const summary = await own.analytics.summary({ from: today, to: today });
    expect(summary).toMatchObject({ sales: 2, gross_amount: 1009.5 });
    expect(summary.by_method).toEqual({
      pix: { sales: 1, gross_amount: 12.5 },
      card: { sales: 1, gross_amount: 997 },
    });
  });
});
