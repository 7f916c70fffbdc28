import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { CARD_DECLINE_CODES } from '../../src/domain/kernel/card-outcome.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { BUYER, payByCard, priceTable, storeEvents } from './card-test-helpers.js';

/**
 * Card payments in test mode without a test PSP: the simulated provider, driven end to end through
 * the API (each test token's outcome, 3-D Secure, settlement, chargeback, refund, installments,
 * idempotency and the request's strict schema).
 */
const logLines: Record<string, unknown>[] = [];

describeEachDatabase(
  'Simulated card payments through the API',
  (api) => {
    async function store() {
      const { storeId, key } = await api.createStore({ name: 'Loja Cartão' });
      return { storeId, key, live: await api.createKey(storeId, undefined, 'live') };
    }

    it('tok_test_approved: 201 approved, with a card sale for the goods’ price, events card_payment.approved then sale.approved', async () => {
      const { storeId, key } = await store();
      const res = await payByCard(api, key, {
        amount: 997,
        installments: 3,
        card: { token: 'tok_test_approved' },
      });
      expect(res.status).toBe(201);
      const payment = res.body;
      expect(payment).toMatchObject({
        object: 'card_payment',
        status: 'approved',
        amount: 997,
        installments: 3,
        provider: 'simulated',
        livemode: false,
        card: { brand: 'visa', last4: '4242' },
        decline: null,
        next_action: null,
      });
      expect(payment.sale_id).toEqual(expect.any(String));
      const sale = (await api.as(key).get(`/sales/${payment.sale_id}`)).body;
      expect(sale).toMatchObject({
        status: 'approved',
        payment_method: 'card',
        card_payment_id: payment.id,
        installments: 3,
        amount: 997,
      });
      const events = await storeEvents(api, storeId);
      expect(events.map((e) => [e.type, e.id])).toEqual([
        ['card_payment.approved', payment.id],
        ['sale.approved', sale.id],
      ]);
      expect((await api.as(key).get(`/payments/card/${payment.id}`)).body).toEqual(payment);
    });

    it('every tok_test_declined_<code>: declined with that code and its message, no sale, card_payment.declined', async () => {
      const { storeId, key } = await store();
      for (const code of CARD_DECLINE_CODES) {
        const res = await payByCard(api, key, { amount: 50, card: { token: `tok_test_declined_${code}` } });
        expect(res.status).toBe(201);
        expect(res.body.status).toBe('declined');
        expect(res.body.decline).toMatchObject({ code, message: expect.any(String) });
        expect(res.body.sale_id).toBeNull();
        expect(res.body.declined_at).toEqual(expect.any(String));
      }
      const events = await storeEvents(api, storeId);
      expect(events.map((e) => e.type)).toEqual(CARD_DECLINE_CODES.map(() => 'card_payment.declined'));
      expect((await api.as(key).get('/sales')).body.data).toHaveLength(0);
      expectError(
        await payByCard(api, key, { amount: 50, card: { token: 'tok_test_declined_nonsense' } }),
        400,
        'invalid_request',
        'card.token',
      );
    });

    it('tok_test_3ds: requires_action with a next_action; simulate_3ds authenticated → approved with its sale, failed → declined authentication_failed', async () => {
      const { storeId, key } = await store();
      const first = (await payByCard(api, key, { amount: 120, card: { token: 'tok_test_3ds' } })).body;
      expect(first.status).toBe('requires_action');
      expect(first.next_action).toEqual({ type: 'three_d_secure', url: expect.stringMatching(/\/p\/3ds\//) });
      const approved = await api
        .as(key)
        .post(`/payments/card/${first.id}/simulate_3ds`, { result: 'authenticated' });
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ status: 'approved', next_action: null });
      expect((await api.as(key).get(`/sales/${approved.body.sale_id}`)).body.card_payment_id).toBe(first.id);
      // Once decided, it cannot be authenticated again.
      expectError(
        await api.as(key).post(`/payments/card/${first.id}/simulate_3ds`, { result: 'failed' }),
        400,
        'invalid_request',
      );

      const second = (await payByCard(api, key, { amount: 120, card: { token: 'tok_test_3ds' } })).body;
      const failed = await api.as(key).post(`/payments/card/${second.id}/simulate_3ds`, { result: 'failed' });
      expect(failed.body).toMatchObject({
        status: 'declined',
        decline: { code: 'authentication_failed' },
        sale_id: null,
      });

      const types = (await storeEvents(api, storeId)).map((e) => e.type);
      expect(types).toEqual([
        'card_payment.requires_action',
        'card_payment.approved',
        'sale.approved',
        'card_payment.requires_action',
        'card_payment.declined',
      ]);
    });

    it('tok_test_processing: processing with no event until simulate_settlement approves it or declines it issuer_declined', async () => {
      const { storeId, key } = await store();
      const first = (await payByCard(api, key, { amount: 80, card: { token: 'tok_test_processing' } })).body;
      expect(first.status).toBe('processing');
      expect(await storeEvents(api, storeId)).toHaveLength(0);
      const approved = await api
        .as(key)
        .post(`/payments/card/${first.id}/simulate_settlement`, { result: 'approved' });
      expect(approved.body.status).toBe('approved');
      expect(approved.body.sale_id).toEqual(expect.any(String));

      const second = (await payByCard(api, key, { amount: 80, card: { token: 'tok_test_processing' } })).body;
      const declined = await api
        .as(key)
        .post(`/payments/card/${second.id}/simulate_settlement`, { result: 'declined' });
      expect(declined.body).toMatchObject({ status: 'declined', decline: { code: 'issuer_declined' } });
      expect((await storeEvents(api, storeId)).map((e) => e.type)).toEqual([
        'card_payment.approved',
        'sale.approved',
        'card_payment.declined',
      ]);
    });

    it('simulate_chargeback: the sale becomes charged_back with sale.charged_back, the payment stays approved; refused on others and twice changes nothing', async () => {
      const { storeId, key } = await store();
      const payment = (await payByCard(api, key, { amount: 300, card: { token: 'tok_test_approved' } })).body;
      const res = await api.as(key).post(`/payments/card/${payment.id}/simulate_chargeback`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('approved');
      const sale = (await api.as(key).get(`/sales/${payment.sale_id}`)).body;
      expect(sale.status).toBe('charged_back');
      await api.as(key).post(`/payments/card/${payment.id}/simulate_chargeback`);
      const charged = (await storeEvents(api, storeId)).filter((e) => e.type === 'sale.charged_back');
      expect(charged.map((e) => e.id)).toEqual([sale.id]);
      // A charged-back sale has nothing left to refund.
      expectError(await api.as(key).post(`/sales/${sale.id}/refund`), 400, 'invalid_request');

      const pending = (await payByCard(api, key, { amount: 300, card: { token: 'tok_test_processing' } }))
        .body;
      expectError(
        await api.as(key).post(`/payments/card/${pending.id}/simulate_chargeback`),
        400,
        'invalid_request',
      );
    });

    it('POST /sales/{id}/refund on a card sale: the payment becomes refunded, the sale refunded, card_payment.refunded then sale.refunded', async () => {
      const { storeId, key } = await store();
      const payment = (
        await payByCard(api, key, { amount: 997, installments: 12, card: { token: 'tok_test_approved' } })
      ).body;
      const refunded = await api.as(key).post(`/sales/${payment.sale_id}/refund`);
      expect(refunded.status).toBe(200);
      expect(refunded.body).toMatchObject({ status: 'refunded', refund: { status: 'succeeded' } });
      expect((await api.as(key).get(`/payments/card/${payment.id}`)).body.status).toBe('refunded');
      const types = (await storeEvents(api, storeId)).map((e) => [e.type, e.id]);
      expect(types).toEqual([
        ['card_payment.approved', payment.id],
        ['sale.approved', payment.sale_id],
        ['card_payment.refunded', payment.id],
        ['sale.refunded', payment.sale_id],
      ]);
      expectError(await api.as(key).post(`/sales/${payment.sale_id}/refund`), 400, 'invalid_request');
      expect((await api.as(key).get('/payments/card?status=refunded')).body.data).toHaveLength(1);
    });

    it('R$ 997 in 12x at 2.99% a month: the options and the payment follow the price table', async () => {
      const { key } = await store();
      const expected = priceTable(99_700, 12, 2.99);
      const options = (await api.as(key).get('/payments/card/installments?amount=997')).body;
      const twelve = options.options.find((o: { installments: number }) => o.installments === 12);
      expect(twelve).toEqual({
        installments: 12,
        installment_amount: expected.installmentCents / 100,
        total_amount: expected.totalCents / 100,
        interest_free: false,
      });
      expect(options.options[0]).toEqual({
        installments: 1,
        installment_amount: 997,
        total_amount: 997,
        interest_free: true,
      });
      const payment = (
        await payByCard(api, key, { amount: 997, installments: 12, card: { token: 'tok_test_approved' } })
      ).body;
      expect(payment).toMatchObject({
        amount: 997,
        installments: 12,
        installment_amount: expected.installmentCents / 100,
        total_amount: expected.totalCents / 100,
      });
      // The sale is the goods’ price; the buyer’s interest stays in total_amount.
      expect((await api.as(key).get(`/sales/${payment.sale_id}`)).body.amount).toBe(997);
    });

    it('Idempotency-Key: required (400), a retry with the same key answers the same payment and makes one sale', async () => {
      const { key } = await store();
      expectError(
        await payByCard(api, key, { amount: 10, card: { token: 'tok_test_approved' } }, null),
        400,
        'invalid_request',
        'Idempotency-Key',
      );
      const idem = randomUUID();
      const body = { amount: 10, card: { token: 'tok_test_approved' } };
      const first = await payByCard(api, key, body, idem);
      const again = await payByCard(api, key, body, idem);
      expect(first.status).toBe(201);
      expect(again.body.id).toBe(first.body.id);
      expect((await api.as(key).get('/payments/card')).body.data).toHaveLength(1);
      expect((await api.as(key).get('/sales')).body.data).toHaveLength(1);
    });

    it('external_id reused with another key: 200 with the same payment, nothing charged again', async () => {
      const { key } = await store();
      const body = { amount: 10, external_id: 'pedido-42', card: { token: 'tok_test_approved' } };
      const first = await payByCard(api, key, body);
      const reused = await payByCard(api, key, body);
      expect(first.status).toBe(201);
      expect(reused.status).toBe(200);
      expect(reused.body).toEqual(first.body);
      expect((await api.as(key).get('/sales')).body.data).toHaveLength(1);
    });

    it('the strict schema refuses a card number: card.number, and a 16-digit token (400 naming the field)', async () => {
      const { key } = await store();
      const before = await api.count('card_payments');
      const withNumber = await payByCard(api, key, {
        amount: 10,
        card: { token: 'tok_test_approved', number: '4111111111111111' },
      });
      expect(expectError(withNumber, 400, 'invalid_request').param).toMatch(/^card/);
      expectError(
        await payByCard(api, key, { amount: 10, card: { token: '4111111111111111' } }),
        400,
        'invalid_request',
        'card.token',
      );
      expect(withNumber.text).not.toContain('4111111111111111');
      expect(await api.count('card_payments')).toBe(before);
    });

    it('live keys: 400 provider_not_configured without a live provider, and 400 on every simulate_*', async () => {
      const { key, live } = await store();
      const before = await api.count('card_payments');
      expectError(
        await payByCard(api, live, { amount: 10, card: { token: 'tok_test_approved' } }),
        400,
        'provider_not_configured',
      );
      expect(await api.count('card_payments')).toBe(before);
      const payment = (await payByCard(api, key, { amount: 10, card: { token: 'tok_test_3ds' } })).body;
      for (const [action, body] of [
        ['simulate_3ds', { result: 'authenticated' }],
        ['simulate_settlement', { result: 'approved' }],
        ['simulate_chargeback', undefined],
      ] as const) {
        expectError(
          await api.as(live).post(`/payments/card/${payment.id}/${action}`, body),
          400,
          'invalid_request',
        );
      }
      // …and a test key's payment is not a live key's to see.
      expectError(await api.as(live).get(`/payments/card/${payment.id}`), 404, 'not_found');
    });

    it('the card token is never in an answer, an event or a log line', async () => {
      const { storeId, key } = await store();
      const tokens = [
        'tok_test_approved',
        'tok_test_3ds',
        'tok_test_processing',
        'tok_test_declined_invalid_cvv',
      ];
      const texts: string[] = [];
      for (const token of tokens) {
        const res = await payByCard(api, key, { amount: 25, card: { token } });
        texts.push(res.text, (await api.as(key).get(`/payments/card/${res.body.id}`)).text);
      }
      texts.push((await api.as(key).get('/payments/card')).text, (await api.as(key).get('/events')).text);
      texts.push(...(await storeEvents(api, storeId)).map((e) => e.payload));
      const logged = JSON.stringify(logLines);
      expect(logLines.length).toBeGreaterThan(0);
      for (const token of tokens) {
        for (const text of texts) expect(text).not.toContain(token);
        expect(logged).not.toContain(token);
      }
      expect(JSON.stringify(BUYER)).not.toContain('tok_');
    });
  },
  { logLines },
);
