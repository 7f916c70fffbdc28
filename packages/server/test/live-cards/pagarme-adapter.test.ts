import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CardChargeRequest,
  CardProvider,
  InstallmentPolicy,
} from '../../src/domain/payments/card-provider.js';
import { installmentOption, installmentTable } from '../../src/domain/payments/installment-table.js';
import { pagarmeProvider } from '../../src/domain/payments/pagarme/pagarme-provider.js';
import type { PagarmeSettings } from '../../src/domain/payments/pagarme/pagarme-provider.js';
import { ProviderError } from '../../src/domain/payments/provider-errors.js';
import { parseAllowedEndpoints } from '../../src/platform/outbound/url-policy.js';
import { startFakePagarme } from '../support/fake-pagarme.js';
import type { FakeCardOutcome, FakePagarme } from '../support/fake-pagarme.js';
import { scaled } from '../support/time-scale.js';

/**
 * The Pagar.me v5 card adapter against the fake Pagar.me over HTTPS: what it sends (amounts in
 * cents, installments, token, buyer, idempotency key, statement descriptor), how it reads every
 * outcome, refunds and webhooks, and that every failure is a ProviderError without the secret key.
 */
const POLICY: InstallmentPolicy = {
  maxInstallments: 12,
  interestFreeInstallments: 1,
  monthlyInterestRate: 2.99,
  minInstallmentCents: 500,
};

describe('Pagar.me card adapter', () => {
  let fake: FakePagarme;
  let settings: PagarmeSettings;
  let provider: CardProvider;

  beforeAll(async () => {
    fake = await startFakePagarme();
    const allowedHosts = parseAllowedEndpoints(fake.host);
    if ('invalid' in allowedHosts) throw new Error(allowedHosts.invalid);
    settings = {
      secretKey: fake.secretKey,
      publicKey: fake.publicKey,
      baseUrl: fake.baseUrl,
      caPem: fake.caPem,
      connectTimeoutMs: scaled(3000),
      requestTimeoutMs: scaled(2000),
      allowedHosts,
    };
    provider = pagarmeProvider(settings);
  });
  afterAll(async () => {
    await provider.close();
    await fake.close();
  });

  function chargeRequest(token: string, overrides: Partial<CardChargeRequest> = {}): CardChargeRequest {
    return {
      paymentId: `card_${randomUUID().replace(/-/g, '')}`,
      idempotencyKey: randomUUID(),
      amountCents: 10_000,
      installments: 3,
      totalCents: installmentOption(10_000, POLICY, 3)!.totalCents,
      token,
      brand: 'visa',
      issuerId: null,
      payer: {
        name: 'Maria Silva',
        email: 'maria@example.com',
        document: '12345678909',
        documentType: 'CPF',
        phone: '+55 (21) 99999-8888',
      },
      description: 'Pedido 1',
      statementDescriptor: 'Loja da Açaí & Cia Ltda',
      notificationUrl: null,
      items: [{ code: 'prod_1', description: 'Camiseta', amountCents: 5000, quantity: 2 }],
      ...overrides,
    };
  }

  const pay = (outcome: FakeCardOutcome, overrides: Partial<CardChargeRequest> = {}) =>
    provider.createPayment(chargeRequest(fake.issueToken(outcome), overrides));

  /** The ProviderError a call fails with, checked never to carry the secret key. */
  async function providerError(call: Promise<unknown>): Promise<ProviderError> {
    const error = await call.then(
      () => expect.fail('expected a ProviderError'),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).message).not.toContain(fake.secretKey);
    return error as ProviderError;
  }

  it('charges the total with interest in installments and answers the approved payment', async () => {
    const request = chargeRequest(fake.issueToken('approved'));
    expect(request.totalCents).toBeGreaterThan(request.amountCents);
    const outcome = await provider.createPayment(request);
    expect(outcome).toEqual({
      pspId: expect.stringMatching(/^or_/),
      pspChargeId: expect.stringMatching(/^ch_/),
      status: 'approved',
      decline: null,
      card: { brand: 'visa', last4: '0010', expMonth: 12, expYear: expect.any(Number) },
      authorizationCode: expect.stringMatching(/^\d{6}$/),
      challenge: null,
    });
    const sent = fake.requests.at(-1)!;
    expect(sent).toEqual({
      method: 'POST',
      path: '/core/v5/orders',
      authorization: `Basic ${Buffer.from(`${fake.secretKey}:`).toString('base64')}`,
      idempotencyKey: request.idempotencyKey,
      body: {
        code: request.paymentId,
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
            amount: request.totalCents,
            credit_card: { installments: 3, statement_descriptor: 'Loja da Acai', card_token: request.token },
          },
        ],
      },
    });
    expect(
      (await provider.getPayment({ pspId: outcome.pspId, pspChargeId: outcome.pspChargeId })).status,
    ).toBe('approved');
  });

  it('sends a company as such, and no phone when none is known or it cannot be split', async () => {
    for (const phone of [null, '+1 415 555 0100', '12345']) {
      await pay('approved', {
        payer: {
          name: 'ACME Ltda',
          email: 'fin@acme.com.br',
          document: '11222333000181',
          documentType: 'CNPJ',
          phone,
        },
        statementDescriptor: '***',
      });
      const body = fake.requests.at(-1)!.body as { customer: object; payments: [{ credit_card: object }] };
      expect(body.customer).toEqual({
        name: 'ACME Ltda',
        email: 'fin@acme.com.br',
        document: '11222333000181',
        document_type: 'CNPJ',
        type: 'company',
      });
      // Nothing printable left of the store's name: Pagar.me prints the account's own descriptor.
      expect(body.payments[0].credit_card).not.toHaveProperty('statement_descriptor');
    }
    await pay('approved', { payer: { ...chargeRequest('').payer, phone: '21987654321' } });
    expect((fake.requests.at(-1)!.body as { customer: { phones: object } }).customer.phones).toEqual({
      mobile_phone: { country_code: '55', area_code: '21', number: '987654321' },
    });
  });

  it('normalises every decline, keeping Pagar.me’s code', async () => {
    const cases: [string, string][] = [
      ['51', 'insufficient_funds'],
      ['82', 'invalid_cvv'],
      ['N7', 'invalid_cvv'],
      ['54', 'invalid_expiry'],
      ['14', 'invalid_number'],
      ['01', 'call_issuer'],
      ['02', 'call_issuer'],
      ['57', 'card_disabled'],
      ['62', 'card_disabled'],
      ['78', 'card_disabled'],
      ['59', 'fraud_suspected'],
      ['63', 'fraud_suspected'],
      ['75', 'max_attempts'],
      ['05', 'issuer_declined'],
      ['N4', 'issuer_declined'],
    ];
    for (const [providerCode, code] of cases) {
      const outcome = await pay({ declined: providerCode });
      expect(outcome, providerCode).toMatchObject({
        status: 'declined',
        decline: { code, providerCode },
        authorizationCode: null,
        pspChargeId: expect.stringMatching(/^ch_/),
      });
    }
    expect((await pay('antifraud')).decline).toEqual({
      code: 'fraud_suspected',
      providerCode: 'antifraud:0001',
    });
    const spent = await provider.createPayment(chargeRequest('token_neverIssued12345'));
    expect(spent).toMatchObject({
      status: 'declined',
      decline: { code: 'processing_error', providerCode: '400' },
    });
  });

  it('reads a processing payment back once Pagar.me settles it', async () => {
    const paid = await pay('processing');
    const failed = await pay('processing');
    expect([paid.status, failed.status]).toEqual(['processing', 'processing']);
    fake.settle(paid.pspId, 'paid');
    fake.settle(failed.pspId, 'failed');
    expect(await provider.getPayment(paid)).toMatchObject({
      status: 'approved',
      authorizationCode: expect.any(String),
    });
    expect(await provider.getPayment(failed)).toMatchObject({
      status: 'declined',
      decline: { code: 'issuer_declined', providerCode: '05' },
    });
  });

  it('refunds by cancelling the charge, in whole or in part, once per key', async () => {
    const whole = await pay('approved');
    const request = {
      idempotencyKey: randomUUID(),
      amountCents: installmentOption(10_000, POLICY, 3)!.totalCents,
    };
    expect(await provider.refund(whole, request)).toEqual({ status: 'succeeded', reason: null });
    expect(await provider.refund(whole, request)).toEqual({ status: 'succeeded', reason: null });
    const sent = fake.requests.at(-1)!;
    expect(sent).toMatchObject({
      method: 'DELETE',
      path: `/core/v5/charges/${whole.pspChargeId}`,
      idempotencyKey: request.idempotencyKey,
      body: { amount: request.amountCents },
    });
    expect((await provider.getPayment(whole)).status).toBe('refunded');
    // Another key on a cancelled charge: Pagar.me refuses (412), which is no refund of ours.
    expect(
      (await providerError(provider.refund(whole, { ...request, idempotencyKey: randomUUID() }))).pspStatus,
    ).toBe(412);

    const part = await pay('approved');
    expect(await provider.refund(part, { idempotencyKey: randomUUID(), amountCents: 1000 })).toEqual({
      status: 'succeeded',
      reason: null,
    });
    expect((await provider.getPayment(part)).status).toBe('approved');
  });

  it('tells a refund Pagar.me is still processing, and its later outcome by reading back', async () => {
    const later = await pay('approved');
    fake.holdRefunds = true;
    try {
      const whole = {
        idempotencyKey: randomUUID(),
        amountCents: installmentOption(10_000, POLICY, 3)!.totalCents,
      };
      expect(await provider.refund(later, whole)).toEqual({
        status: 'pending',
        reason: null,
      });
    } finally {
      fake.holdRefunds = false;
    }
    expect((await provider.getPayment(later)).status).toBe('approved');
    fake.settleRefund(later.pspChargeId!, 'refunded');
    expect((await provider.getPayment(later)).status).toBe('refunded');
  });

  it('reads a chargeback', async () => {
    const disputed = await pay('approved');
    fake.chargeback(disputed.pspChargeId!);
    expect(await provider.getPayment(disputed)).toMatchObject({ status: 'charged_back', decline: null });
  });

  it('turns a 5xx, a refused key and a refused body into ProviderErrors naming what Pagar.me said', async () => {
    fake.failNext(1, '500');
    const fivehundred = await providerError(pay('approved'));
    expect(fivehundred).toMatchObject({ pspStatus: 500, statusCode: 502, code: 'provider_error' });
    expect(fivehundred.message).toMatch(
      /Pagar.me answered POST \/orders with 500: "An error has occurred\."/,
    );

    const wrongKey = pagarmeProvider({ ...settings, secretKey: 'sk_test_NotTheAccountsKey1' });
    try {
      const refused = await providerError(wrongKey.getPayment({ pspId: 'or_x', pspChargeId: null }));
      expect(refused.pspStatus).toBe(401);
      expect(refused.message).not.toContain('sk_test_NotTheAccountsKey1');
    } finally {
      await wrongKey.close();
    }

    fake.requireBillingAddress = true;
    try {
      const invalid = await providerError(pay('approved'));
      expect(invalid.pspStatus).toBe(422);
      expect(invalid.message).toContain(
        '422: "The request is invalid." (order.payments[0].credit_card.card.billing_address: The billing_address field is required.)',
      );
    } finally {
      fake.requireBillingAddress = false;
    }
    expect(
      (await providerError(provider.getPayment({ pspId: 'or_missing', pspChargeId: null }))).pspStatus,
    ).toBe(404);
  });

  it('gives up on a Pagar.me that does not answer in time', async () => {
    fake.failNext(1, 'timeout');
    const error = await providerError(pay('approved'));
    expect(error.pspStatus).toBeNull();
    expect(error.message).toMatch(/no answer within \d+ ms/);
  });

  it('retries createPayment with the same key into the one order Pagar.me made', async () => {
    const request = chargeRequest(fake.issueToken('approved'));
    const before = fake.orders.size;
    fake.failNext(1, '500', { after: true });
    await providerError(provider.createPayment(request));
    const retried = await provider.createPayment(request);
    expect(retried.status).toBe('approved');
    expect(fake.orders.size).toBe(before + 1);
    expect([...fake.orders.values()].filter((o) => o.code === request.paymentId).map((o) => o.id)).toEqual([
      retried.pspId,
    ]);
  });

  it('reads the order a webhook is about; anything else is no payment, never forged', async () => {
    const paid = await pay('approved');
    const read = (body: unknown) =>
      provider.readNotification({
        query: {},
        headers: {},
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    for (const type of [
      'order.paid',
      'order.payment_failed',
      'charge.paid',
      'charge.refunded',
      'charge.chargedback',
    ]) {
      expect(read(fake.webhook(type, paid.pspId)), type).toEqual({ pspId: paid.pspId });
    }
    expect(read({ id: 'hook_x', type: 'customer.created', data: { id: 'cus_x' } })).toBeNull();
    expect(
      read({ id: 'hook_x', type: 'charge.paid', data: { id: 'ch_x', invoice: { id: 'in_x' } } }),
    ).toBeNull();
    expect(read('not json')).toBeNull();
    expect(read(null)).toBeNull();
  });

  it('offers the store’s price table', async () => {
    expect(await provider.installmentOptions({ amountCents: 10_000, bin: '400000', policy: POLICY })).toEqual(
      installmentTable(10_000, POLICY),
    );
  });

  it('reaches a non-public address only when the operator allowed it, and only over trusted TLS', async () => {
    const before = fake.requests.length;
    const unallowed = pagarmeProvider({ ...settings, allowedHosts: new Set() });
    const untrusted = pagarmeProvider({ ...settings, caPem: null });
    try {
      const blocked = await providerError(unallowed.getPayment({ pspId: 'or_x', pspChargeId: null }));
      expect(blocked).toMatchObject({ blockedAddress: true, pspStatus: null });
      expect(blocked.message).toMatch(/EBLOCKEDADDRESS/);
      const tls = await providerError(untrusted.getPayment({ pspId: 'or_x', pspChargeId: null }));
      expect(tls).toMatchObject({ blockedAddress: false, pspStatus: null });
      expect(tls.message).toMatch(/certificate/i);
    } finally {
      await unallowed.close();
      await untrusted.close();
    }
    expect(fake.requests.length).toBe(before);
  });
});
