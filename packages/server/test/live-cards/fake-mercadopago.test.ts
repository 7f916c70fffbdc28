import { createHmac, randomUUID } from 'node:crypto';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mpCardToken, startFakeMercadoPago } from '../support/fake-mercadopago.js';
import type { FakeMercadoPago, FakeMpOutcome } from '../support/fake-mercadopago.js';
import { startHttpsReceiver } from '../support/https-receiver.js';
import type { HttpsReceiver } from '../support/https-receiver.js';

/**
 * The fake Mercado Pago's own wire rules, so the adapter's tests stand on a fake that behaves like
 * Mercado Pago's documentation says: Bearer auth, idempotent creation, statuses chosen by the card
 * token, reais as JSON numbers, refunds, installments, and notifications signed the way it signs them.
 */
describe('fake Mercado Pago', () => {
  let mp: FakeMercadoPago;
  let receiver: HttpsReceiver;
  let agent: Agent;

  beforeAll(async () => {
    mp = await startFakeMercadoPago();
    receiver = await startHttpsReceiver();
    agent = new Agent({ connect: { ca: mp.caPem } });
  });
  afterAll(async () => {
    await agent.close();
    await receiver.close();
    await mp.close();
  });

  async function call(
    method: 'GET' | 'POST',
    path: string,
    options: { body?: unknown; key?: string; token?: string | null } = {},
  ): Promise<{ status: number; body: Record<string, unknown> & Array<Record<string, unknown>> }> {
    const token = options.token === undefined ? mp.accessToken : options.token;
    const res = await request(`${mp.baseUrl}${path}`, {
      method,
      dispatcher: agent,
      headers: {
        ...(token !== null && { authorization: `Bearer ${token}` }),
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
        ...(options.key !== undefined && { 'x-idempotency-key': options.key }),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return { status: res.statusCode, body: (await res.body.json()) as never };
  }

  const paymentBody = (outcome: FakeMpOutcome, extra: Record<string, unknown> = {}) => ({
    transaction_amount: 123.45,
    installments: 3,
    token: mpCardToken(outcome),
    payment_method_id: 'master',
    payer: {
      email: 'ana@example.com',
      first_name: 'Ana',
      identification: { type: 'CPF', number: '12345678909' },
    },
    external_reference: `card_${randomUUID()}`,
    three_d_secure_mode: 'optional',
    statement_descriptor: 'LOJA DA ANA',
    ...extra,
  });
  const create = (outcome: FakeMpOutcome, extra: Record<string, unknown> = {}) =>
    call('POST', '/v1/payments', { body: paymentBody(outcome, extra), key: randomUUID() });

  it('answers 401 with its error body without the Bearer access token, or with another one', async () => {
    for (const token of [null, 'APP_USR-someone-else']) {
      const res = await call('GET', '/v1/payment_methods/installments?amount=100&bin=503143', { token });
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ error: 'unauthorized', status: 401, cause: [] });
      expect(typeof res.body.message).toBe('string');
    }
  });

  it('refuses a payment without X-Idempotency-Key, and answers a repeated key with the same payment', async () => {
    const missing = await call('POST', '/v1/payments', { body: paymentBody('approved') });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ error: 'bad_request', cause: [{ code: 'empty_required_header' }] });

    const key = randomUUID();
    const first = await call('POST', '/v1/payments', { body: paymentBody('approved'), key });
    const again = await call('POST', '/v1/payments', { body: paymentBody('approved'), key });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect([...mp.payments.values()].filter((p) => p.idempotencyKey === key)).toHaveLength(1);
  });

  it('takes reais as a JSON number with at most two decimals and answers them the same way', async () => {
    const ok = await create('approved', { transaction_amount: 1999.9 });
    expect(ok.body).toMatchObject({ transaction_amount: 1999.9, currency_id: 'BRL', installments: 3 });
    for (const amount of ['123.45', 12.345, 0, -5]) {
      const res = await create('approved', { transaction_amount: amount });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ cause: [{ description: 'Invalid transaction_amount' }] });
    }
    const unknown = await create('approved', { amount: 10 });
    expect(unknown.status).toBe(400);
    expect(String(unknown.body.message)).toContain('[amount]');
    const document = await create('approved', {
      payer: { email: 'ana@example.com', identification: { type: 'CPF', number: '123' } },
    });
    expect(document.status).toBe(400);
  });

  it('a card token is single-use and must be one it issued', async () => {
    const body = paymentBody('approved');
    expect((await call('POST', '/v1/payments', { body, key: randomUUID() })).status).toBe(201);
    const reused = await call('POST', '/v1/payments', { body, key: randomUUID() });
    expect(reused.body).toMatchObject({ status: 400, cause: [{ code: 3003 }] });
    const strange = await create('approved', { token: 'ff8080814c11e237014c1ff593b57b4d' });
    expect(strange.body).toMatchObject({ status: 400, cause: [{ code: 2006 }] });
  });

  it('the token decides: approved, rejected with its detail, in_process then settled', async () => {
    const approved = await create('approved');
    expect(approved.body).toMatchObject({
      status: 'approved',
      status_detail: 'accredited',
      payment_method_id: 'master',
      card: {
        first_six_digits: '503143',
        last_four_digits: '6351',
        expiration_month: 11,
        expiration_year: 2030,
      },
    });
    expect(approved.body.authorization_code).toMatch(/^\d{6}$/);

    const rejected = await create({ rejected: 'cc_rejected_insufficient_amount' });
    expect(rejected.body).toMatchObject({
      status: 'rejected',
      status_detail: 'cc_rejected_insufficient_amount',
    });

    const pending = await create('in_process');
    expect(pending.body).toMatchObject({ status: 'in_process', status_detail: 'pending_contingency' });
    const id = pending.body.id as number;
    await mp.settle(id, 'approved');
    expect((await call('GET', `/v1/payments/${id}`)).body).toMatchObject({ status: 'approved' });
    expect((await call('GET', '/v1/payments/1')).status).toBe(404);
  });

  it('a 3-D Secure card asks for a challenge when the mode allows it, and the challenge decides', async () => {
    const challenged = await create('challenge');
    expect(challenged.body).toMatchObject({ status: 'pending', status_detail: 'pending_challenge' });
    const info = challenged.body.three_ds_info as { external_resource_url: string; creq: string };
    expect(info.external_resource_url).toMatch(/^https:\/\//);
    expect(info.creq).not.toBe('');
    await mp.completeChallenge(challenged.body.id as number, 'failed');
    expect((await call('GET', `/v1/payments/${String(challenged.body.id)}`)).body).toMatchObject({
      status: 'rejected',
      status_detail: 'cc_rejected_3ds_challenge',
      three_ds_info: null,
    });

    const passed = await create('challenge');
    await mp.completeChallenge(passed.body.id as number, 'authenticated');
    expect(mp.payments.get(passed.body.id as number)?.status).toBe('approved');

    const unsupported = await create('challenge', { three_d_secure_mode: 'not_supported' });
    expect(unsupported.body).toMatchObject({
      status: 'rejected',
      status_detail: 'cc_rejected_3ds_mandatory',
    });
  });

  it('refunds in part and then whole, idempotent by key, never beyond the amount; a chargeback is told', async () => {
    const paid = await create('approved', { transaction_amount: 100 });
    const id = paid.body.id as number;
    const key = randomUUID();
    const part = await call('POST', `/v1/payments/${id}/refunds`, { body: { amount: 30.5 }, key });
    expect(part).toMatchObject({ status: 201, body: { amount: 30.5, status: 'approved', payment_id: id } });
    const again = await call('POST', `/v1/payments/${id}/refunds`, { body: { amount: 30.5 }, key });
    expect(again.body.id).toBe(part.body.id);
    expect((await call('GET', `/v1/payments/${id}`)).body).toMatchObject({
      status: 'approved',
      status_detail: 'partially_refunded',
      transaction_amount_refunded: 30.5,
    });
    const beyond = await call('POST', `/v1/payments/${id}/refunds`, {
      body: { amount: 70 },
      key: randomUUID(),
    });
    expect(beyond.status).toBe(400);
    await call('POST', `/v1/payments/${id}/refunds`, { body: { amount: 69.5 }, key: randomUUID() });
    expect((await call('GET', `/v1/payments/${id}`)).body).toMatchObject({ status: 'refunded' });

    const disputed = await create('approved');
    await mp.chargeBack(disputed.body.id as number);
    expect((await call('GET', `/v1/payments/${String(disputed.body.id)}`)).body).toMatchObject({
      status: 'charged_back',
    });
  });

  it('answers installments per amount and BIN: interest-free up to 3, its rates beyond, none under R$ 5', async () => {
    const res = await call('GET', '/v1/payment_methods/installments?amount=100.00&bin=50314332');
    expect(res.status).toBe(200);
    const [entry] = res.body;
    expect(entry).toMatchObject({ payment_method_id: 'master', payment_type_id: 'credit_card' });
    const costs = entry!.payer_costs as Array<Record<string, number>>;
    expect(costs.map((c) => c.installments)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(costs[2]).toMatchObject({
      installments: 3,
      installment_rate: 0,
      installment_amount: 33.33,
      total_amount: 100,
    });
    expect(costs[11]!.installment_rate).toBeGreaterThan(0);
    expect(costs[11]!.total_amount).toBeGreaterThan(100);

    const small = await call('GET', '/v1/payment_methods/installments?amount=12&bin=423564');
    expect(small.body[0]).toMatchObject({ payment_method_id: 'visa' });
    expect(
      (small.body[0]!.payer_costs as Array<{ installments: number }>).map((c) => c.installments),
    ).toEqual([1, 2]);
    expect((await call('GET', '/v1/payment_methods/installments?amount=12&bin=999999')).body).toEqual([]);
    expect((await call('GET', '/v1/payment_methods/installments?bin=503143')).status).toBe(400);
  });

  it('signs notifications as Mercado Pago does, and can forge or leave one unsigned', async () => {
    const url = `${receiver.url}/callbacks/card/abc`;
    const signed = mp.notification(url, 'ABC123', 'signed');
    expect(signed.query).toMatchObject({ 'data.id': 'ABC123', type: 'payment' });
    expect(JSON.parse(signed.body)).toMatchObject({ type: 'payment', data: { id: 'ABC123' } });
    const expected = (note: typeof signed) => {
      const ts = /^ts=(\d+),/.exec(note.headers['x-signature']!)![1];
      const manifest = `id:abc123;request-id:${note.headers['x-request-id']};ts:${ts};`;
      return createHmac('sha256', mp.webhookSecret).update(manifest).digest('hex');
    };
    expect(signed.headers['x-signature']).toMatch(/^ts=\d+,v1=[0-9a-f]{64}$/);
    expect(signed.headers['x-signature']).toContain(`,v1=${expected(signed)}`);
    const forged = mp.notification(url, 'ABC123', 'forged');
    expect(forged.headers['x-signature']).toMatch(/^ts=\d+,v1=[0-9a-f]{64}$/);
    expect(forged.headers['x-signature']).not.toContain(`,v1=${expected(forged)}`);
    expect(mp.notification(url, 1, 'unsigned').headers['x-signature']).toBeUndefined();

    expect(await mp.sendNotification(url, 42)).toBe(200);
    const [received] = await receiver.waitForRequests(1);
    expect(received!.path).toBe('/callbacks/card/abc?data.id=42&type=payment');
    expect(received!.headers['x-signature']).toMatch(/^ts=\d+,v1=[0-9a-f]{64}$/);
  });

  it('fails on demand: 500 without the work, or the work done and the answer late', async () => {
    mp.failNext('error');
    const failed = await create('approved');
    expect(failed.body).toMatchObject({ status: 500, error: 'internal_server_error' });

    mp.failNext('slow', { delayMs: 300 });
    const key = randomUUID();
    const started = Date.now();
    const late = await call('POST', '/v1/payments', { body: paymentBody('approved'), key });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(late.body).toMatchObject({ status: 'approved' });
  });
});
