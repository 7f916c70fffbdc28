import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakePagarme } from '../support/fake-pagarme.js';
import type { FakeCardOutcome, FakeOrder, FakePagarme } from '../support/fake-pagarme.js';

/**
 * The fake Pagar.me's own behaviour, spoken to over HTTPS the way Pagar.me documents its Core API
 * v5: what the card adapter's tests rely on must hold first.
 */
describe('fake Pagar.me', () => {
  let fake: FakePagarme;
  let agent: Agent;

  beforeAll(async () => {
    fake = await startFakePagarme();
    agent = new Agent({ connect: { ca: fake.caPem } });
  });
  afterAll(async () => {
    await agent.close();
    await fake.close();
  });

  const basic = (user: string, password = '') =>
    `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

  async function call(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    options: { body?: unknown; key?: string; authorization?: string | null; signal?: AbortSignal } = {},
  ): Promise<{ status: number; body: any }> {
    const res = await request(`${fake.baseUrl}${path}`, {
      dispatcher: agent,
      method,
      headers: {
        ...(options.authorization !== null && {
          authorization: options.authorization ?? basic(fake.secretKey),
        }),
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
        ...(options.key !== undefined && { 'idempotency-key': options.key }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) };
  }

  function orderBody(token: string, overrides: Record<string, unknown> = {}) {
    return {
      code: 'card_test',
      items: [{ amount: 5000, description: 'Camiseta', quantity: 2, code: 'prod_1' }],
      customer: {
        name: 'Maria Silva',
        email: 'maria@example.com',
        document: '12345678909',
        document_type: 'CPF',
        type: 'individual',
        phones: { mobile_phone: { country_code: '55', area_code: '21', number: '999998888' } },
      },
      payments: [
        {
          payment_method: 'credit_card',
          amount: 10596,
          credit_card: { installments: 3, statement_descriptor: 'LOJA TESTE', card_token: token },
        },
      ],
      ...overrides,
    };
  }

  async function order(outcome: FakeCardOutcome, key: string = crypto.randomUUID()): Promise<FakeOrder> {
    const res = await call('POST', '/orders', { body: orderBody(fake.issueToken(outcome)), key });
    expect(res.status).toBe(200);
    return res.body as FakeOrder;
  }

  it('asks for the secret key by HTTP Basic with an empty password', async () => {
    expect(await call('GET', '/orders/or_x', { authorization: null })).toEqual({
      status: 401,
      body: { message: 'Authorization has been denied for this request.' },
    });
    expect((await call('GET', '/orders/or_x', { authorization: basic('sk_test_other') })).status).toBe(401);
    expect((await call('GET', '/orders/or_x', { authorization: basic(fake.secretKey, 'x') })).status).toBe(
      401,
    );
    expect(await call('GET', '/orders/or_x')).toEqual({ status: 404, body: { message: 'Order not found.' } });
    await expect(startFakePagarme({ secretKey: 'not-a-key' })).rejects.toThrow(/not a Pagar.me secret key/);
  });

  it('answers an approved order in the v5 shape, and records what it received', async () => {
    const before = fake.requests.length;
    const paid = await order('approved', 'key-approved');
    expect(paid).toMatchObject({
      id: expect.stringMatching(/^or_\w{16}$/),
      code: 'card_test',
      amount: 10596,
      status: 'paid',
      items: [{ amount: 5000, quantity: 2, description: 'Camiseta', code: 'prod_1' }],
      customer: { name: 'Maria Silva', document: '12345678909', type: 'individual' },
      charges: [
        {
          id: expect.stringMatching(/^ch_\w{16}$/),
          amount: 10596,
          paid_amount: 10596,
          status: 'paid',
          payment_method: 'credit_card',
          last_transaction: {
            status: 'captured',
            success: true,
            installments: 3,
            statement_descriptor: 'LOJA TESTE',
            acquirer_return_code: '00',
            acquirer_auth_code: expect.stringMatching(/^\d{6}$/),
            card: { brand: 'Visa', last_four_digits: '0010', exp_month: 12 },
          },
        },
      ],
    });
    expect(fake.requests.slice(before)).toEqual([
      expect.objectContaining({ method: 'POST', path: '/core/v5/orders', idempotencyKey: 'key-approved' }),
    ]);
    expect((await call('GET', `/orders/${paid.id}`)).body).toEqual(paid);
  });

  it('answers the same Idempotency-Key with the first answer, never a second order', async () => {
    const body = orderBody(fake.issueToken('approved'));
    const first = await call('POST', '/orders', { body, key: 'key-once' });
    const count = fake.orders.size;
    const again = await call('POST', '/orders', { body, key: 'key-once' });
    expect(again).toEqual(first);
    expect(fake.orders.size).toBe(count);
    // Without the key the same token is spent: the gateway refuses it.
    const spent = await call('POST', '/orders', { body, key: 'key-other' });
    expect(spent.body).toMatchObject({
      status: 'failed',
      charges: [
        { status: 'failed', last_transaction: { status: 'failed', gateway_response: { code: '400' } } },
      ],
    });
  });

  it('declines with the acquirer code, refuses by antifraud, fails an unknown token', async () => {
    expect((await order({ declined: '51' })).charges[0]).toMatchObject({
      status: 'failed',
      last_transaction: { status: 'not_authorized', acquirer_return_code: '51', acquirer_auth_code: null },
    });
    const fraud = await order('antifraud');
    expect(fraud).toMatchObject({ status: 'failed', charges: [{ status: 'failed' }] });
    expect(fraud.charges[0]!.last_transaction.antifraud_response).toMatchObject({ status: 'reproved' });
    const simulated = await call('POST', '/orders', {
      body: orderBody(fake.issueToken('approved'), {
        customer: { name: 'Fraude', email: 'f@example.com', document: '11111111111', type: 'individual' },
      }),
    });
    expect(simulated.body.charges[0].last_transaction.antifraud_response.status).toBe('reproved');
    const unknown = await call('POST', '/orders', { body: orderBody('token_neverIssued12345') });
    expect(unknown.body.charges[0].last_transaction.gateway_response).toEqual({
      code: '400',
      errors: [{ message: expect.stringMatching(/token/) }],
    });
  });

  it('keeps a processing order pending until it is settled', async () => {
    const pending = await order('processing');
    expect(pending).toMatchObject({ status: 'pending', charges: [{ status: 'processing' }] });
    fake.settle(pending.id, 'paid');
    expect((await call('GET', `/orders/${pending.id}`)).body).toMatchObject({
      status: 'paid',
      charges: [{ status: 'paid', last_transaction: { status: 'captured' } }],
    });
    const failing = await order('processing');
    fake.settle(failing.id, 'failed');
    expect((await call('GET', `/orders/${failing.id}`)).body.charges[0]).toMatchObject({
      status: 'failed',
      last_transaction: { status: 'not_authorized', acquirer_return_code: '05' },
    });
    expect(() => fake.settle(failing.id, 'paid')).toThrow(/not processing/);
  });

  it('answers a bad body 422 with Pagar.me’s {message, errors}', async () => {
    const token = fake.issueToken('approved');
    const res = await call('POST', '/orders', {
      body: orderBody(token, {
        customer: { email: 'no-at-sign', document: '123', type: 'person' },
        payments: [
          {
            payment_method: 'credit_card',
            amount: 10.5,
            credit_card: { installments: 13, statement_descriptor: 'Loja do João Ltda', card_token: token },
          },
        ],
      }),
    });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('The request is invalid.');
    expect(Object.keys(res.body.errors).sort()).toEqual([
      'order.customer.document',
      'order.customer.email',
      'order.customer.name',
      'order.customer.type',
      'order.payments[0].amount',
      'order.payments[0].credit_card.installments',
      'order.payments[0].credit_card.statement_descriptor',
    ]);
    fake.requireBillingAddress = true;
    try {
      const refused = await call('POST', '/orders', { body: orderBody(fake.issueToken('approved')) });
      expect(refused.body.errors).toEqual({
        'order.payments[0].credit_card.card.billing_address': ['The billing_address field is required.'],
      });
    } finally {
      fake.requireBillingAddress = false;
    }
  });

  it('refunds by DELETE /charges/{id}: part, the rest, then refuses; idempotent by key', async () => {
    const paid = await order('approved');
    const chargeId = paid.charges[0]!.id;
    const part = await call('DELETE', `/charges/${chargeId}`, { body: { amount: 596 }, key: 'refund-1' });
    expect(part.body).toMatchObject({
      status: 'paid',
      canceled_amount: 596,
      last_transaction: { status: 'partial_refunded' },
    });
    expect(await call('DELETE', `/charges/${chargeId}`, { body: { amount: 596 }, key: 'refund-1' })).toEqual(
      part,
    );
    expect((await call('DELETE', `/charges/${chargeId}`, { body: { amount: 20_000 } })).status).toBe(422);
    const rest = await call('DELETE', `/charges/${chargeId}`, { key: 'refund-2' });
    expect(rest.body).toMatchObject({
      status: 'canceled',
      canceled_amount: 10596,
      last_transaction: { status: 'refunded' },
    });
    expect((await call('GET', `/orders/${paid.id}`)).body.status).toBe('canceled');
    expect((await call('DELETE', `/charges/${chargeId}`, { key: 'refund-3' })).status).toBe(412);
    expect((await call('DELETE', '/charges/ch_nope')).status).toBe(404);
  });

  it('holds a refund until settled, and turns a paid charge chargedback', async () => {
    fake.holdRefunds = true;
    const held = await order('approved');
    const refused = await order('approved');
    try {
      expect((await call('DELETE', `/charges/${held.charges[0]!.id}`)).body).toMatchObject({
        status: 'paid',
        last_transaction: { status: 'waiting_cancellation' },
      });
      await call('DELETE', `/charges/${refused.charges[0]!.id}`);
    } finally {
      fake.holdRefunds = false;
    }
    fake.settleRefund(held.charges[0]!.id, 'refunded');
    fake.settleRefund(refused.charges[0]!.id, 'failed');
    const charges = async (o: FakeOrder) =>
      ((await call('GET', `/orders/${o.id}`)).body as FakeOrder).charges[0]!;
    expect(await charges(held)).toMatchObject({
      status: 'canceled',
      last_transaction: { status: 'refunded' },
    });
    expect(await charges(refused)).toMatchObject({
      status: 'paid',
      last_transaction: { status: 'error_on_refunding' },
    });

    const disputed = await order('approved');
    fake.chargeback(disputed.charges[0]!.id);
    expect(await charges(disputed)).toMatchObject({ status: 'chargedback' });
    expect(() => fake.chargeback(disputed.charges[0]!.id)).toThrow(/not paid/);
  });

  it('fails the next calls on demand: 500 before or after the work, or no answer at all', async () => {
    const count = fake.orders.size;
    fake.failNext(1, '500');
    expect(await call('POST', '/orders', { body: orderBody(fake.issueToken()), key: 'k500' })).toEqual({
      status: 500,
      body: { message: 'An error has occurred.' },
    });
    expect(fake.orders.size).toBe(count);
    fake.failNext(1, '500', { after: true });
    const body = orderBody(fake.issueToken());
    expect((await call('POST', '/orders', { body, key: 'k500-after' })).status).toBe(500);
    expect(fake.orders.size).toBe(count + 1);
    const retried = await call('POST', '/orders', { body, key: 'k500-after' });
    expect(retried.body.status).toBe('paid');
    expect(fake.orders.size).toBe(count + 1);
    fake.failNext(1, 'timeout');
    await expect(
      call('GET', `/orders/${retried.body.id}`, { signal: AbortSignal.timeout(300) }),
    ).rejects.toThrow();
    expect((await call('GET', `/orders/${retried.body.id}`)).status).toBe(200);
  });

  it('makes card tokens as the page script asks, with the simulator’s outcomes', async () => {
    const tokenFor = (card: Record<string, unknown>, appId = fake.publicKey) =>
      call('POST', `/tokens?appId=${appId}`, {
        authorization: null,
        body: {
          type: 'card',
          card: { holder_name: 'Maria Silva', exp_month: 12, exp_year: 2099, cvv: '123', ...card },
        },
      });
    expect((await tokenFor({ number: '4000000000000010' }, 'pk_test_other')).status).toBe(401);
    expect((await tokenFor({ number: '4000000000000011' })).body.errors).toHaveProperty([
      'request.card.number',
    ]);
    const approved = await tokenFor({ number: '5555555555554444' });
    expect(approved.body).toMatchObject({
      id: expect.stringMatching(/^token_\w{16}$/),
      type: 'card',
      card: { first_six_digits: '555555', last_four_digits: '4444', brand: 'Mastercard', exp_year: 2099 },
    });
    const outcomes = [];
    for (const card of [
      { number: '5555555555554444' },
      { number: '4000000000000010', cvv: '612' },
      { number: '4000000000000036' },
    ]) {
      const token = (await tokenFor(card)).body.id as string;
      outcomes.push((await call('POST', '/orders', { body: orderBody(token) })).body.status);
    }
    expect(outcomes).toEqual(['paid', 'failed', 'pending']);
    // Single use: its first order is paid, a second one fails at the gateway.
    expect((await call('POST', '/orders', { body: orderBody(approved.body.id) })).body.status).toBe('paid');
    expect((await call('POST', '/orders', { body: orderBody(approved.body.id) })).body.status).toBe('failed');
  });

  it('builds webhook bodies as Pagar.me sends them and POSTs them', async () => {
    const paid = await order('approved');
    expect(fake.webhook('order.paid', paid.id)).toMatchObject({
      id: expect.stringMatching(/^hook_/),
      type: 'order.paid',
      data: { id: paid.id, status: 'paid', charges: [{ id: paid.charges[0]!.id }] },
    });
    const chargeHook = fake.webhook('charge.paid', paid.id);
    expect(chargeHook.data).toMatchObject({
      id: paid.charges[0]!.id,
      order: { id: paid.id, status: 'paid' },
    });

    const received: unknown[] = [];
    const receiver = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        received.push({ type: req.headers['content-type'], body: JSON.parse(text) });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = receiver.address() as AddressInfo;
      expect(await fake.postWebhook(`http://127.0.0.1:${port}/callbacks/card/x`, chargeHook)).toBe(200);
      expect(received).toEqual([{ type: 'application/json', body: chargeHook }]);
    } finally {
      receiver.close();
    }
  });
});
