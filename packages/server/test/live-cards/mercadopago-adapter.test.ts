import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardChargeRequest, CardProvider } from '../../src/domain/payments/card-provider.js';
import { installmentTable } from '../../src/domain/payments/installment-table.js';
import { mercadoPagoProvider } from '../../src/domain/payments/mercadopago/mercadopago-provider.js';
import type { MercadoPagoSettings } from '../../src/domain/payments/mercadopago/mercadopago-provider.js';
import { ProviderError } from '../../src/domain/payments/provider-errors.js';
import { parseAllowedEndpoints } from '../../src/platform/outbound/url-policy.js';
import { mpCardToken, startFakeMercadoPago } from '../support/fake-mercadopago.js';
import type { FakeMercadoPago, FakeMpOutcome, MpRequest } from '../support/fake-mercadopago.js';
import { scaled } from '../support/time-scale.js';

/**
 * The Mercado Pago card adapter against the fake Mercado Pago over HTTPS: what it sends, how it
 * reads every outcome, refunds and installments, how failures become ProviderError, and how it
 * verifies notifications. The fake listens on 127.0.0.1, so the operator's exception
 * (STOREFRONT_PSP_ALLOWED_HOSTS) names its host and port; one test runs without it.
 */
describe('Mercado Pago card adapter', () => {
  let mp: FakeMercadoPago;
  let provider: CardProvider;
  const opened: CardProvider[] = [];

  const settings = (overrides: Partial<MercadoPagoSettings> = {}): MercadoPagoSettings => {
    const allowed = parseAllowedEndpoints(mp.host);
    if ('invalid' in allowed) throw new Error(allowed.invalid);
    return {
      accessToken: mp.accessToken,
      publicKey: mp.publicKey,
      webhookSecret: mp.webhookSecret,
      baseUrl: mp.baseUrl,
      caPem: mp.caPem,
      connectTimeoutMs: scaled(5_000),
      requestTimeoutMs: scaled(10_000),
      allowedHosts: allowed,
      ...overrides,
    };
  };
  const open = (overrides: Partial<MercadoPagoSettings> = {}) => {
    const made = mercadoPagoProvider(settings(overrides));
    opened.push(made);
    return made;
  };

  const lastRequest = (match: (request: MpRequest) => boolean): MpRequest | undefined =>
    [...mp.requests].reverse().find(match);

  beforeAll(async () => {
    mp = await startFakeMercadoPago();
    // No receiver listens at the notification URLs of these tests.
    mp.dropNotifications = true;
    provider = open();
  });
  afterAll(async () => {
    for (const made of opened) await made.close();
    await mp.close();
  });

  const charge = (outcome: FakeMpOutcome, overrides: Partial<CardChargeRequest> = {}): CardChargeRequest => ({
    paymentId: `card_${randomUUID().replace(/-/g, '')}`,
    idempotencyKey: randomUUID(),
    amountCents: 12345,
    installments: 1,
    totalCents: 12345,
    token: mpCardToken(outcome),
    brand: 'master',
    issuerId: null,
    payer: {
      name: 'Ana Maria Souza',
      email: 'ana@example.com',
      document: '12345678909',
      documentType: 'CPF',
      phone: null,
    },
    description: 'Camiseta azul',
    statementDescriptor: 'Loja da Ana Maria Artesanato',
    notificationUrl: 'https://loja.example/callbacks/card/tok123',
    items: [{ code: 'sku-1', description: 'Camiseta azul', amountCents: 12345, quantity: 1 }],
    ...overrides,
  });

  it('charges in installments: reais, installments, token, payer, idempotency key, notification URL, 3DS mode', async () => {
    const request = charge('approved', { installments: 6, totalCents: 13831, issuerId: '24' });
    const outcome = await provider.createPayment(request);
    expect(outcome).toMatchObject({
      status: 'approved',
      decline: null,
      challenge: null,
      pspChargeId: null,
      card: { brand: 'master', last4: '6351', expMonth: 11, expYear: 2030 },
    });
    expect(outcome.authorizationCode).toMatch(/^\d{6}$/);

    const sent = lastRequest((r) => r.method === 'POST' && r.path === '/v1/payments')!;
    expect(sent.authorization).toBe(`Bearer ${mp.accessToken}`);
    expect(sent.idempotencyKey).toBe(request.idempotencyKey);
    expect(sent.body).toEqual({
      transaction_amount: 123.45,
      installments: 6,
      token: request.token,
      payment_method_id: 'master',
      issuer_id: 24,
      payer: {
        email: 'ana@example.com',
        first_name: 'Ana',
        identification: { type: 'CPF', number: '12345678909' },
      },
      external_reference: request.paymentId,
      notification_url: 'https://loja.example/callbacks/card/tok123',
      three_d_secure_mode: 'optional',
      statement_descriptor: 'Loja da Ana M',
      description: 'Camiseta azul',
    });
    expect(outcome.pspId).toBe(String(mp.paymentFor(request.paymentId)!.id));
  });

  it('leaves out what it was not given: issuer, notification URL, description', async () => {
    const request = charge('approved', {
      notificationUrl: null,
      description: null,
      payer: {
        name: 'Empresa',
        email: 'fin@empresa.example',
        document: '12345678000199',
        documentType: 'CNPJ',
        phone: null,
      },
    });
    await provider.createPayment(request);
    const body = lastRequest((r) => r.path === '/v1/payments')!.body as Record<string, unknown>;
    expect(body).not.toHaveProperty('notification_url');
    expect(body).not.toHaveProperty('description');
    expect(body).not.toHaveProperty('issuer_id');
    expect(body.payer).toMatchObject({ identification: { type: 'CNPJ', number: '12345678000199' } });
  });

  it.each([
    ['cc_rejected_insufficient_amount', 'insufficient_funds'],
    ['cc_rejected_bad_filled_security_code', 'invalid_cvv'],
    ['cc_rejected_bad_filled_date', 'invalid_expiry'],
    ['cc_rejected_bad_filled_card_number', 'invalid_number'],
    ['cc_rejected_bad_filled_other', 'invalid_number'],
    ['cc_rejected_call_for_authorize', 'call_issuer'],
    ['cc_rejected_card_disabled', 'card_disabled'],
    ['cc_rejected_high_risk', 'fraud_suspected'],
    ['cc_rejected_blacklist', 'fraud_suspected'],
    ['cc_rejected_fraud', 'fraud_suspected'],
    ['cc_rejected_3ds_challenge', 'authentication_failed'],
    ['cc_rejected_3ds_mandatory', 'authentication_failed'],
    ['cc_rejected_duplicated_payment', 'duplicate'],
    ['cc_rejected_max_attempts', 'max_attempts'],
    ['cc_rejected_other_reason', 'issuer_declined'],
    ['cc_rejected_something_new', 'issuer_declined'],
  ])('rejected %s → declined %s, Mercado Pago’s code kept', async (detail, code) => {
    const outcome = await provider.createPayment(charge({ rejected: detail }));
    expect(outcome).toMatchObject({
      status: 'declined',
      decline: { code, providerCode: detail },
      challenge: null,
    });
  });

  it('a 3-D Secure challenge → requires_action with the challenge; completed → approved, failed → declined', async () => {
    const first = await provider.createPayment(charge('challenge'));
    expect(first.status).toBe('requires_action');
    const info = mp.payments.get(Number(first.pspId))!.three_ds_info!;
    expect(first.challenge).toEqual({ url: info.external_resource_url, creq: info.creq });
    await mp.completeChallenge(Number(first.pspId), 'authenticated');
    expect(await provider.getPayment({ pspId: first.pspId, pspChargeId: null })).toMatchObject({
      status: 'approved',
      challenge: null,
    });

    const second = await provider.createPayment(charge('challenge'));
    await mp.completeChallenge(Number(second.pspId), 'failed');
    expect(await provider.getPayment({ pspId: second.pspId, pspChargeId: null })).toMatchObject({
      status: 'declined',
      decline: { code: 'authentication_failed', providerCode: 'cc_rejected_3ds_challenge' },
    });
  });

  it('in_process → processing, then read back once Mercado Pago decided', async () => {
    const approved = await provider.createPayment(charge('in_process'));
    expect(approved).toMatchObject({ status: 'processing', decline: null });
    await mp.settle(Number(approved.pspId), 'approved');
    expect((await provider.getPayment({ pspId: approved.pspId, pspChargeId: null })).status).toBe('approved');

    const declined = await provider.createPayment(charge('in_process'));
    await mp.settle(Number(declined.pspId), 'rejected', 'cc_rejected_high_risk');
    expect(await provider.getPayment({ pspId: declined.pspId, pspChargeId: null })).toMatchObject({
      status: 'declined',
      decline: { code: 'fraud_suspected', providerCode: 'cc_rejected_high_risk' },
    });
  });

  it('refunds with the key and the amount in reais; approved → succeeded, in process → pending, rejected → failed', async () => {
    const paid = await provider.createPayment(charge('approved'));
    const ref = { pspId: paid.pspId, pspChargeId: null };
    const key = randomUUID();
    expect(await provider.refund(ref, { idempotencyKey: key, amountCents: 12345 })).toEqual({
      status: 'succeeded',
      reason: null,
    });
    const sent = lastRequest((r) => r.path === `/v1/payments/${paid.pspId}/refunds`)!;
    expect(sent).toMatchObject({ method: 'POST', idempotencyKey: key, body: { amount: 123.45 } });
    // A retried refund with the same key refunds nothing more.
    expect((await provider.refund(ref, { idempotencyKey: key, amountCents: 12345 })).status).toBe(
      'succeeded',
    );
    expect(mp.payments.get(Number(paid.pspId))!.refunds).toHaveLength(1);
    expect((await provider.getPayment(ref)).status).toBe('refunded');

    const later = await provider.createPayment(charge('approved'));
    mp.nextRefundStatus = 'in_process';
    const pending = await provider.refund(
      { pspId: later.pspId, pspChargeId: null },
      { idempotencyKey: randomUUID(), amountCents: 1000 },
    );
    mp.nextRefundStatus = 'rejected';
    const failed = await provider.refund(
      { pspId: later.pspId, pspChargeId: null },
      { idempotencyKey: randomUUID(), amountCents: 1000 },
    );
    mp.nextRefundStatus = 'approved';
    expect(pending).toEqual({ status: 'pending', reason: null });
    expect(failed.status).toBe('failed');
    expect(failed.reason).toMatch(/rejected/);
  });

  it('a chargeback reads as charged_back', async () => {
    const paid = await provider.createPayment(charge('approved'));
    await mp.chargeBack(Number(paid.pspId));
    expect((await provider.getPayment({ pspId: paid.pspId, pspChargeId: null })).status).toBe('charged_back');
  });

  it('installments: Mercado Pago’s own for the amount and BIN, capped at the store’s maximum; no BIN → the store’s table', async () => {
    const policy = {
      maxInstallments: 6,
      interestFreeInstallments: 2,
      monthlyInterestRate: 2.99,
      minInstallmentCents: 500,
    };
    const options = await provider.installmentOptions({ amountCents: 10000, bin: '50314332', policy });
    expect(options.map((o) => o.installments)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(options[2]).toEqual({
      installments: 3,
      installmentCents: 3333,
      totalCents: 10000,
      interestFree: true,
    });
    expect(options[5]!.interestFree).toBe(false);
    expect(options[5]!.totalCents).toBeGreaterThan(10000);
    const asked = lastRequest((r) => r.path === '/v1/payment_methods/installments')!;
    expect(asked.query).toEqual({ amount: '100.00', bin: '50314332' });

    expect(await provider.installmentOptions({ amountCents: 10000, bin: '999999', policy })).toEqual([]);
    expect(await provider.installmentOptions({ amountCents: 10000, bin: null, policy })).toEqual(
      installmentTable(10000, policy),
    );
  });

  it('a 5xx is a ProviderError that names Mercado Pago’s answer and never the token', async () => {
    mp.failNext('error');
    const error = await provider.createPayment(charge('approved')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ statusCode: 502, code: 'provider_error', pspStatus: 500 });
    expect((error as Error).message).toContain('500 internal_server_error');
    expect((error as Error).message).not.toContain(mp.accessToken);
  });

  it('a refused token and a 4xx are ProviderErrors too, without the token', async () => {
    const stranger = open({ accessToken: 'APP_USR-not-this-store' });
    const refused = await stranger.getPayment({ pspId: '1', pspChargeId: null }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'provider_error', pspStatus: 401 });
    expect((refused as Error).message).not.toContain('APP_USR-not-this-store');

    const missing = await provider.getPayment({ pspId: '1', pspChargeId: null }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 'provider_error', pspStatus: 404 });
    expect((missing as Error).message).toContain('Payment not found');
  });

  it('a timeout is a ProviderError; the retry with the same key gets the payment, never a second charge', async () => {
    const hasty = open({ requestTimeoutMs: scaled(1_000) });
    const request = charge('approved');
    mp.failNext('slow', { delayMs: scaled(1_000) + 2_000 });
    const error = await hasty.createPayment(request).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ pspStatus: null });
    expect((error as Error).message).toMatch(/no answer within/);

    const retried = await hasty.createPayment(request);
    expect(retried.status).toBe('approved');
    expect([...mp.payments.values()].filter((p) => p.external_reference === request.paymentId)).toHaveLength(
      1,
    );
    expect(mp.requests.filter((r) => r.idempotencyKey === request.idempotencyKey)).toHaveLength(2);
  });

  it('an answer lost after the work: the retry with the same key answers the one payment', async () => {
    const request = charge('approved');
    mp.failNext('error_after_work');
    await expect(provider.createPayment(request)).rejects.toBeInstanceOf(ProviderError);
    const retried = await provider.createPayment(request);
    expect(retried.pspId).toBe(String(mp.paymentFor(request.paymentId)!.id));
    expect([...mp.payments.values()].filter((p) => p.external_reference === request.paymentId)).toHaveLength(
      1,
    );
  });

  it('a server certificate it cannot verify is a ProviderError, nothing sent', async () => {
    const untrusting = open({ caPem: null });
    const before = mp.requests.length;
    const error = await untrusting.getPayment({ pspId: '1', pspChargeId: null }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ pspStatus: null, blockedAddress: false });
    expect((error as Error).message).toMatch(/certificate/i);
    expect(mp.requests.length).toBe(before);
  });

  it('without the operator’s exception, the loopback address is refused before connecting', async () => {
    const strict = open({ allowedHosts: new Set() });
    const before = mp.requests.length;
    const error = await strict.createPayment(charge('approved')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ blockedAddress: true, pspStatus: null });
    expect((error as Error).message).toMatch(/EBLOCKEDADDRESS/);
    expect(mp.requests.length).toBe(before);
  });

  describe('notifications', () => {
    const url = 'https://loja.example/callbacks/card/tok123';
    const asReceived = (note: ReturnType<FakeMercadoPago['notification']>) => ({
      query: note.query,
      headers: note.headers,
      body: note.body,
    });

    it('a signed payment notification names the payment', () => {
      expect(provider.readNotification(asReceived(mp.notification(url, 1312345678)))).toEqual({
        pspId: '1312345678',
      });
      // An alphanumeric id is signed lower-cased, and read as it came.
      expect(provider.readNotification(asReceived(mp.notification(url, 'AbC123')))).toEqual({
        pspId: 'AbC123',
      });
    });

    it('a forged, unsigned or altered one is forged when a secret is set', () => {
      expect(provider.readNotification(asReceived(mp.notification(url, 1, 'forged')))).toBe('forged');
      expect(provider.readNotification(asReceived(mp.notification(url, 1, 'unsigned')))).toBe('forged');
      const altered = asReceived(mp.notification(url, 1));
      expect(provider.readNotification({ ...altered, query: { ...altered.query, 'data.id': '2' } })).toBe(
        'forged',
      );
      expect(
        provider.readNotification({
          ...altered,
          headers: { ...altered.headers, 'x-signature': 'ts=1,v1=zz' },
        }),
      ).toBe('forged');
    });

    it('without a secret, an unsigned notification is read (the payment is read back anyway)', () => {
      const trusting = open({ webhookSecret: null });
      expect(trusting.readNotification(asReceived(mp.notification(url, 77, 'unsigned')))).toEqual({
        pspId: '77',
      });
    });

    it('another topic names no payment', () => {
      const note = asReceived(mp.notification(url, 5));
      expect(
        provider.readNotification({
          ...note,
          query: { 'data.id': '5', type: 'merchant_order' },
          body: JSON.stringify({ type: 'merchant_order', data: { id: '5' } }),
        }),
      ).toBeNull();
    });
  });
});
