import { beforeAll, expect, it } from 'vitest';
import {
  AuthenticationError,
  NotFoundError,
  Storefront,
  ValidationError,
  isApiError,
} from '../../../client/src/index.js';
import { parseBrCode } from '../../src/platform/brcode/index.js';
import { decodeQr } from '../pix/pix-test-helpers.js';
import { describeEachDatabase } from '../support/test-api.js';

/** The official client (packages/client) against the real service over HTTP. */
describeEachDatabase('official client against the service', (api) => {
  let client: Storefront;
  let storeId: string;

  beforeAll(async () => {
    const store = await api.createStore();
    storeId = store.storeId;
    client = new Storefront({ apiKey: store.key, baseUrl: api.baseUrl });
  });

  it('creates a Pix charge from an amount alone, with a BR Code and a QR that decodes to it', async () => {
    const charge = await client.pix.create({ amount: 49.9 });
    expect(charge.id).toMatch(/^pix_/);
    expect(charge.status).toBe('pending');
    expect(charge.amount).toBe(49.9);
    expect(parseBrCode(charge.pix.copy_paste).amount).toBe(49.9);
    expect(decodeQr(charge.pix.qr_code_base64)).toBe(charge.pix.copy_paste);
  });

  it('retrieves by id and by external id, and reusing an external id returns the same charge', async () => {
    const externalId = `order:${Date.now()}.a_b`;
    const created = await client.pix.create({
      amount: 10,
      external_id: externalId,
      description: 'Pedido 42',
      customer: { email: 'ana@example.com', document: '529.982.247-25' },
      metadata: { order: '42' },
    });
    expect((await client.pix.retrieve(created.id)).id).toBe(created.id);
    expect((await client.pix.retrieveByExternalId(externalId)).id).toBe(created.id);
    const again = await client.pix.create({ amount: 10, external_id: externalId });
    expect(again.id).toBe(created.id);
  });

  it('sends a generated Idempotency-Key that the service honours', async () => {
    const key = 'client-idem-1';
    const first = await client.pix.create({ amount: 3 }, { idempotencyKey: key });
    const second = await client.pix.create({ amount: 3 }, { idempotencyKey: key });
    expect(second.id).toBe(first.id);
    const rows = await api.db
      .selectFrom('idempotency_keys')
      .select('key')
      .where('store_id', '=', storeId)
      .execute();
    // Every POST above carried a key: the given one, and a generated UUID v4 for the others.
    expect(rows.map((r) => r.key)).toContain(key);
    expect(
      rows.some((r) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(r.key)),
    ).toBe(true);
  });

  it('lists and pages through every charge with for await, newest first', async () => {
    for (let i = 0; i < 7; i += 1) await client.pix.create({ amount: 1 + i });
    const firstPage = await client.pix.list({ limit: 3 });
    expect(firstPage.data).toHaveLength(3);
    expect(firstPage.has_more).toBe(true);
    const all: string[] = [];
    for await (const charge of client.pix.list({ limit: 3 })) all.push(charge.id);
    const total = await api.db
      .selectFrom('pix_charges')
      .select('id')
      .where('store_id', '=', storeId)
      .execute();
    expect(all).toHaveLength(total.length);
    expect(new Set(all).size).toBe(all.length);
    const pending = await client.pix.list({ status: 'pending', limit: 100 });
    expect(pending.data.every((c) => c.status === 'pending')).toBe(true);
  });

  it('pays in test mode, then lists, retrieves and refunds the sale', async () => {
    const charge = await client.pix.create({ amount: 120.5 });
    const paid = await client.pix.simulatePayment(charge.id);
    expect(paid.status).toBe('paid');
    expect(paid.paid_at).toEqual(expect.any(String));

    const sales = await client.sales.list({ limit: 100 });
    const sale = sales.data.find((s) => s.pix_charge_id === charge.id);
    expect(sale).toMatchObject({ status: 'approved', amount: 120.5, payment_method: 'pix' });
    expect((await client.sales.retrieve(sale!.id)).id).toBe(sale!.id);
    // No customer e-mail, so there is no delivery e-mail to resend.
    expect(sale!.delivery_email).toBeNull();
    await expect(client.sales.resendDeliveryEmail(sale!.id)).rejects.toBeInstanceOf(ValidationError);
    const refunded = await client.sales.refund(sale!.id);
    expect(refunded.status).toBe('refunded');
    await expect(client.sales.refund(sale!.id)).rejects.toBeInstanceOf(ValidationError);
  });

  it('maps the service errors to the documented classes with status, code, message and requestId', async () => {
    const missing = await client.pix.retrieve('pix_doesnotexist').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(isApiError(missing) && missing.status).toBe(404);
    expect(missing).toMatchObject({ code: 'not_found', requestId: expect.stringMatching(/^req_/) });

    const invalid = await client.pix.create({ amount: 0 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', param: 'amount' });

    const anonymous = new Storefront({
      apiKey: `sk_test_${'x'.repeat(40)}`,
      baseUrl: api.baseUrl,
      maxRetries: 0,
    });
    await expect(anonymous.pix.list()).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('manages coupons and edits checkouts, and expires a test charge at once', async () => {
    const coupon = await client.coupons.create({ code: 'cliente10', percent_off: 10, max_redemptions: 3 });
    expect(coupon).toMatchObject({ code: 'CLIENTE10', percent_off: 10, times_redeemed: 0 });
    expect((await client.coupons.update(coupon.id, { max_redemptions: null })).max_redemptions).toBeNull();
    expect((await client.coupons.archive(coupon.id)).active).toBe(false);
    expect((await client.coupons.list({ active: false })).data.map((c) => c.id)).toContain(coupon.id);
    expect((await client.coupons.retrieve(coupon.id)).active).toBe(false);

    const checkout = await client.checkouts.create({ name: 'Antes' });
    const edited = await client.checkouts.update(checkout.id, {
      settings_json: { checkout_cupom_enabled: true },
    });
    expect(edited.settings_json.checkout_cupom_enabled).toBe(true);
    await client.checkouts.archive(checkout.id);
    expect((await client.checkouts.unarchive(checkout.id)).archived).toBe(false);

    const charge = await client.pix.create({ amount: 3 });
    expect((await client.pix.simulateExpiration(charge.id)).status).toBe('expired');
    await expect(client.pix.simulateExpiration(charge.id)).rejects.toBeInstanceOf(ValidationError);
  });

  it('reads the analytics summary of the day a sale was made, and is refused a range too long', async () => {
    const store = await api.createStore();
    const own = new Storefront({ apiKey: store.key, baseUrl: api.baseUrl });
    const charge = await own.pix.create({ amount: 12.5 });
    await own.pix.simulatePayment(charge.id);
    const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10); // São Paulo, UTC−3
    const summary = await own.analytics.summary({ from: today, to: today });
    expect(summary).toMatchObject({
      object: 'analytics_summary',
      sales: 1,
      gross_amount: 12.5,
      net_amount: 12.5,
    });
    expect(summary.days).toEqual([expect.objectContaining({ date: today, sales: 1 })]);
    const tooLong = await own.analytics
      .summary({ from: '2024-01-01', to: '2025-01-01' })
      .catch((e: unknown) => e);
    expect(tooLong).toBeInstanceOf(ValidationError);
    expect(tooLong).toMatchObject({ status: 400, code: 'invalid_request', param: 'to' });
  });

  it('subscriptions: create with the first charge, pay it, renew, list by status, cancel', async () => {
    const product = await client.products.create({ nome: 'Clube', preco: 29.9, recorrencia: 'mensal' });
    expect(product).toMatchObject({ recorrencia: 'mensal', retry_policy: '3_in_7_days' });
    const created = await client.subscriptions.create({
      product_id: product.id,
      customer: { name: 'Ana Souza', document: '529.982.247-25' },
    });
    expect(created).toMatchObject({ status: 'pending', amount: 29.9, first_charge: { amount: 29.9 } });
    expect(created.lastResponse.statusCode).toBe(201);
    await client.pix.simulatePayment(created.first_charge.id);
    expect(await client.subscriptions.retrieve(created.id)).toMatchObject({ status: 'active', cycle: 1 });
    expect(await client.subscriptions.simulateRenewal(created.id)).toMatchObject({ cycle: 2 });
    expect(await client.subscriptions.simulateFailure(created.id)).toMatchObject({ status: 'past_due' });
    const pastDue = await client.subscriptions.list({ status: 'past_due', product_id: product.id });
    expect(pastDue.data.map((s) => s.id)).toEqual([created.id]);
    expect(await client.subscriptions.cancel(created.id)).toMatchObject({
      status: 'canceled',
      cancel_reason: 'merchant',
    });
    const other = await client.subscriptions.create({
      product_id: product.id,
      customer: { name: 'Bia', document: '529.982.247-25' },
    });
    await client.pix.simulatePayment(other.first_charge.id);
    expect(await client.subscriptions.simulateBuyerCancel(other.id)).toMatchObject({
      cancel_reason: 'buyer',
    });
  });
});
