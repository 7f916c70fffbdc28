import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pspIdempotencyKey } from '../../src/flows/create-card-payment.js';
import { startCardReconciler } from '../../src/flows/reconcile-card-payments.js';
import { runCli } from '../support/cli.js';
import { mpCardToken, startFakeMercadoPago } from '../support/fake-mercadopago.js';
import type { FakeMercadoPago } from '../support/fake-mercadopago.js';
import { startFakePagarme } from '../support/fake-pagarme.js';
import type { FakePagarme } from '../support/fake-pagarme.js';
import { describeEachDatabase, expectError, TEST_SECRET } from '../support/test-api.js';
import { eventually, silentLog } from '../webhooks/delivery-harness.js';
import { FAKE_PSP_ALLOWED_HOSTS } from '../live-pix/live-harness.js';
import { startRelay } from './card-relay.js';
import { BUYER, payByCard, storeEvents } from './card-test-helpers.js';

/**
 * Live card payments through the API against the fake Mercado Pago and Pagar.me over HTTPS: each
 * store's live PSP set with `storefront card-provider set`, its notifications sent by the fakes to
 * the service (through a relay at its STOREFRONT_PUBLIC_URL), the reconciler reading back what a
 * lost notification did not bring.
 */
const relay = await startRelay();
const PAGARME_SECRET = 'sk_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';
const PAGARME_PUBLIC = 'pk_a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6';

describeEachDatabase(
  'Live card payments through the API against the PSP fakes',
  (api) => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-live-cards-'));
    const file = (name: string, content: string) => {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    };
    let mp: FakeMercadoPago;
    let pg: FakePagarme;
    beforeAll(async () => {
      relay.target = api.baseUrl;
      mp = await startFakeMercadoPago();
      pg = await startFakePagarme({ secretKey: PAGARME_SECRET, publicKey: PAGARME_PUBLIC });
    });
    afterAll(async () => {
      await mp.close();
      await pg.close();
    });

    /** A store whose live card PSP is set as an operator does it; its keys and notification URL. */
    async function liveStore(provider: 'mercadopago' | 'pagarme') {
      const { storeId, key: testKey } = await api.createStore({ name: 'Loja Ao Vivo' });
      const credentials =
        provider === 'mercadopago'
          ? [
              '--access-token-file',
              file('mp-token', mp.accessToken),
              '--public-key',
              mp.publicKey,
              '--webhook-secret-file',
              file('mp-webhook', mp.webhookSecret),
              '--base-url',
              mp.baseUrl,
              '--ca',
              file('mp-ca.pem', mp.caPem),
            ]
          : [
              '--secret-key-file',
              file('pg-secret', PAGARME_SECRET),
              '--public-key',
              PAGARME_PUBLIC,
              '--base-url',
              pg.baseUrl,
              '--ca',
              file('pg-ca.pem', pg.caPem),
            ];
      const env = {
        DATABASE_URL: api.database.url,
        STOREFRONT_SECRET: TEST_SECRET,
        STOREFRONT_PUBLIC_URL: relay.url,
        STOREFRONT_PSP_ALLOWED_HOSTS: '127.0.0.1',
        ...api.database.env,
      };
      const set = await runCli(
        env,
        'card-provider',
        'set',
        '--store',
        storeId,
        '--mode',
        'live',
        '--provider',
        provider,
        ...credentials,
        '--json',
      );
      if (set.code !== 0) throw new Error(`card-provider set failed: ${set.stderr}`);
      const shown = JSON.parse(set.stdout) as { webhook_url: string };
      return {
        storeId,
        testKey,
        key: await api.createKey(storeId, undefined, 'live'),
        webhookUrl: shown.webhook_url,
      };
    }

    const cardPayment = (key: string, id: string) => api.as(key).get(`/payments/card/${id}`);
    const until = (key: string, id: string, status: string) =>
      eventually(async () => {
        const current = (await cardPayment(key, id)).body;
        return current.status === status ? current : undefined;
      });
    const mpPaymentOf = (id: string) => mp.paymentFor(id)!;
    const notificationsOf = (storeId: string) =>
      api.db.selectFrom('card_notifications').selectAll().where('store_id', '=', storeId).execute();
    /** Every notification the store received so far has been read back (a creation's own, say). */
    const notificationsDone = (storeId: string) =>
      eventually(async () => {
        const received = await notificationsOf(storeId);
        return received.length > 0 && received.every((n) => n.processed_at !== null);
      });

    it('Mercado Pago approves in 6x: the fake got the amount, installments, token, payer and our derived idempotency key; the sale is the goods’ price', async () => {
      const store = await liveStore('mercadopago');
      const token = mpCardToken('approved');
      const idem = randomUUID();
      const res = await payByCard(
        api,
        store.key,
        { amount: 997, installments: 6, card: { token, brand: 'visa' } },
        idem,
      );
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        status: 'approved',
        provider: 'mercadopago',
        livemode: true,
        installments: 6,
      });
      const at = mpPaymentOf(res.body.id);
      expect(at).toMatchObject({
        transaction_amount: 997,
        installments: 6,
        token,
        payment_method_id: 'visa',
        external_reference: res.body.id,
        payer: { email: BUYER.email, identification: { type: 'CPF', number: BUYER.document } },
        idempotencyKey: pspIdempotencyKey({ storeId: store.storeId, livemode: true }, idem, null),
      });
      expect(at.notification_url).toBe(store.webhookUrl);
      expect(at.idempotencyKey).not.toBe(idem);
      // Mercado Pago priced the installments: what the buyer pays is its total.
      expect(res.body.total_amount).toBeGreaterThan(997);
      const sale = (await api.as(store.key).get(`/sales/${res.body.sale_id}`)).body;
      expect(sale).toMatchObject({
        payment_method: 'card',
        amount: 997,
        installments: 6,
        card_payment_id: res.body.id,
      });
      expect((await storeEvents(api, store.storeId)).map((e) => e.type)).toEqual([
        'card_payment.approved',
        'sale.approved',
      ]);
      // Refunded whole: Mercado Pago's transaction_amount, its financing returned with it.
      const refunded = await api.as(store.key).post(`/sales/${res.body.sale_id}/refund`);
      expect(refunded.body.status).toBe('refunded');
      expect(at.refunds.map((r) => r.amount)).toEqual([997]);
    });

    it('declines are normalised, the PSP’s own code kept: Mercado Pago and Pagar.me', async () => {
      const mpStore = await liveStore('mercadopago');
      for (const [detail, code] of [
        ['cc_rejected_insufficient_amount', 'insufficient_funds'],
        ['cc_rejected_bad_filled_security_code', 'invalid_cvv'],
        ['cc_rejected_high_risk', 'fraud_suspected'],
      ] as const) {
        const res = await payByCard(api, mpStore.key, {
          amount: 50,
          card: { token: mpCardToken({ rejected: detail }), brand: 'master' },
        });
        expect(res.body).toMatchObject({
          status: 'declined',
          decline: { code, provider_code: detail },
          sale_id: null,
        });
      }
      const pgStore = await liveStore('pagarme');
      const res = await payByCard(api, pgStore.key, {
        amount: 50,
        card: { token: pg.issueToken({ declined: '51' }) },
      });
      expect(res.body).toMatchObject({
        status: 'declined',
        provider: 'pagarme',
        decline: { code: 'insufficient_funds' },
      });
    });

    it('Mercado Pago 3-D Secure: requires_action, then the challenge completes and its signed notification approves it', async () => {
      const store = await liveStore('mercadopago');
      const created = (
        await payByCard(api, store.key, {
          amount: 120,
          card: { token: mpCardToken('challenge'), brand: 'visa' },
        })
      ).body;
      expect(created.status).toBe('requires_action');
      expect(created.next_action.type).toBe('three_d_secure');
      await mp.completeChallenge(mpPaymentOf(created.id).id, 'authenticated');
      expect(mp.notifications.at(-1)).toMatchObject({ status: 200 });
      const approved = await until(store.key, created.id, 'approved');
      expect(approved.sale_id).toEqual(expect.any(String));
      // The payment is applied before its notification is marked: wait for the mark too.
      await notificationsDone(store.storeId);
      const notes = await notificationsOf(store.storeId);
      expect(notes.map((n) => n.outcome)).toContain('processed');
      // Read back from Mercado Pago before anything changed.
      expect(
        mp.requests.some(
          (r) => r.method === 'GET' && r.path === `/v1/payments/${mpPaymentOf(created.id).id}`,
        ),
      ).toBe(true);
    });

    it('in_process, then a notification: approved, with its sale', async () => {
      const store = await liveStore('mercadopago');
      const created = (
        await payByCard(api, store.key, {
          amount: 80,
          card: { token: mpCardToken('in_process'), brand: 'visa' },
        })
      ).body;
      expect(created.status).toBe('processing');
      await mp.settle(mpPaymentOf(created.id).id, 'approved');
      const approved = await until(store.key, created.id, 'approved');
      expect((await api.as(store.key).get(`/sales/${approved.sale_id}`)).body.status).toBe('approved');
    });

    it('a forged notification (an x-signature of another secret, or none) is answered 401 and changes nothing', async () => {
      const store = await liveStore('mercadopago');
      const created = (
        await payByCard(api, store.key, {
          amount: 80,
          card: { token: mpCardToken('in_process'), brand: 'visa' },
        })
      ).body;
      const pspId = mpPaymentOf(created.id).id;
      // The creation's own notification is read back first.
      await notificationsDone(store.storeId);
      mp.dropNotifications = true;
      try {
        await mp.settle(pspId, 'approved');
        const gets = () =>
          mp.requests.filter((r) => r.method === 'GET' && r.path === `/v1/payments/${pspId}`).length;
        const before = gets();
        expect(await mp.sendNotification(store.webhookUrl, pspId, 'forged')).toBe(401);
        expect(await mp.sendNotification(store.webhookUrl, pspId, 'unsigned')).toBe(401);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(gets()).toBe(before);
        expect((await cardPayment(store.key, created.id)).body.status).toBe('processing');
        expect((await notificationsOf(store.storeId)).filter((n) => n.outcome === 'forged')).toHaveLength(2);
        // An unknown token is 404, with no detail.
        const unknown = await fetch(`${api.baseUrl}/callbacks/card/not-a-token`, {
          method: 'POST',
          body: '{}',
          headers: { 'content-type': 'application/json' },
        });
        expect(unknown.status).toBe(404);
        // The signed one is taken.
        expect(await mp.sendNotification(store.webhookUrl, pspId, 'signed')).toBe(200);
        await until(store.key, created.id, 'approved');
      } finally {
        mp.dropNotifications = false;
      }
    });

    it('a lost notification: the reconciler reads the payment back on its schedule and applies it once', async () => {
      const store = await liveStore('mercadopago');
      const created = (
        await payByCard(api, store.key, {
          amount: 80,
          card: { token: mpCardToken('in_process'), brand: 'visa' },
        })
      ).body;
      await notificationsDone(store.storeId);
      mp.dropNotifications = true;
      const reconcilers = [0, 1].map(() =>
        startCardReconciler({
          db: api.db,
          payments: api.payments,
          log: silentLog,
          links: {
            mail: api.config,
            publicUrl: api.config.publicUrl,
            scheduleMs: api.config.cardReconcileScheduleMs,
          },
          leaseMs: 10_000,
          pollIntervalMs: 50,
        }),
      );
      try {
        await mp.settle(mpPaymentOf(created.id).id, 'approved');
        const approved = await until(store.key, created.id, 'approved');
        const events = (await storeEvents(api, store.storeId)).map((e) => e.type);
        expect(events).toEqual(['card_payment.approved', 'sale.approved']);
        const row = await api.db
          .selectFrom('card_payments')
          .selectAll()
          .where('id', '=', approved.id)
          .executeTakeFirstOrThrow();
        expect(row.next_check_at).toBeNull();
      } finally {
        mp.dropNotifications = false;
        await Promise.all(reconcilers.map((r) => r.stop()));
      }
    });

    it('a pending refund whose webhook never came: the reconciler reads the order back and settles it', async () => {
      const store = await liveStore('pagarme');
      const sold = (
        await payByCard(api, store.key, { amount: 70, card: { token: pg.issueToken('approved') } })
      ).body;
      pg.holdRefunds = true;
      const reconciler = startCardReconciler({
        db: api.db,
        payments: api.payments,
        log: silentLog,
        links: {
          mail: api.config,
          publicUrl: api.config.publicUrl,
          scheduleMs: api.config.cardReconcileScheduleMs,
        },
        leaseMs: 10_000,
        pollIntervalMs: 50,
      });
      try {
        expect((await api.as(store.key).post(`/sales/${sold.sale_id}/refund`)).body.refund.status).toBe(
          'pending',
        );
        const order = [...pg.orders.values()].find((o) => o.code === sold.id)!;
        pg.settleRefund(order.charges[0]!.id, 'refunded');
        await until(store.key, sold.id, 'refunded');
        const sale = (await api.as(store.key).get(`/sales/${sold.sale_id}`)).body;
        expect(sale).toMatchObject({ status: 'refunded', refund: { status: 'succeeded' } });
        expect(pg.requests.some((r) => r.method === 'GET' && r.path === `/core/v5/orders/${order.id}`)).toBe(
          true,
        );
      } finally {
        pg.holdRefunds = false;
        await reconciler.stop();
      }
    });

    it('a retried POST with the same key charges once at the fake: after a lost answer and after a timeout', async () => {
      const store = await liveStore('mercadopago');
      for (const mode of ['error_after_work', 'slow'] as const) {
        const idem = randomUUID();
        const body = { amount: 40, card: { token: mpCardToken('approved'), brand: 'visa' } };
        mp.failNext(mode, { count: 1, delayMs: 3_000 });
        expectError(await payByCard(api, store.key, body, idem), 502, 'provider_error');
        const retried = await payByCard(api, store.key, body, idem);
        expect(retried.status).toBe(201);
        expect(retried.body.status).toBe('approved');
        const charges = [...mp.payments.values()].filter((p) => p.external_reference === retried.body.id);
        expect(charges).toHaveLength(1);
      }
      expect((await api.as(store.key).get('/sales')).body.data).toHaveLength(2);
    });

    it('a PSP 5xx: 502 provider_error and nothing written', async () => {
      const store = await liveStore('pagarme');
      const tables = ['card_payments', 'sales', 'events'] as const;
      const before = await Promise.all(tables.map((t) => api.count(t)));
      pg.failNext(3, '500');
      expectError(
        await payByCard(api, store.key, { amount: 40, card: { token: pg.issueToken('approved') } }),
        502,
        'provider_error',
      );
      expect(await Promise.all(tables.map((t) => api.count(t)))).toEqual(before);
      pg.failNext(0);
    });

    it('Pagar.me in 3x: the order carries the table’s total with interest, the installments and the token', async () => {
      const store = await liveStore('pagarme');
      const token = pg.issueToken('approved');
      const res = await payByCard(api, store.key, { amount: 997, installments: 3, card: { token } });
      expect(res.body).toMatchObject({ status: 'approved', provider: 'pagarme', installments: 3 });
      const order = [...pg.orders.values()].find((o) => o.code === res.body.id)!;
      expect(order.charges[0]!.amount).toBe(Math.round(res.body.total_amount * 100));
      expect(order.charges[0]!.last_transaction.installments).toBe(3);
      expect(order.customer).toMatchObject({ email: BUYER.email, document: BUYER.document });
    });

    it('refunds: Mercado Pago at once; Pagar.me pending until its webhook settles it; both payments refunded with their events', async () => {
      const mpStore = await liveStore('mercadopago');
      const paid = (
        await payByCard(api, mpStore.key, {
          amount: 60,
          card: { token: mpCardToken('approved'), brand: 'visa' },
        })
      ).body;
      const refunded = await api.as(mpStore.key).post(`/sales/${paid.sale_id}/refund`);
      expect(refunded.body).toMatchObject({ status: 'refunded', refund: { status: 'succeeded' } });
      expect(mpPaymentOf(paid.id).refunds).toHaveLength(1);
      expect(mpPaymentOf(paid.id).refunds[0]!.amount).toBe(60);
      expect((await cardPayment(mpStore.key, paid.id)).body.status).toBe('refunded');

      const pgStore = await liveStore('pagarme');
      const sold = (
        await payByCard(api, pgStore.key, { amount: 70, card: { token: pg.issueToken('approved') } })
      ).body;
      pg.holdRefunds = true;
      try {
        const pending = await api.as(pgStore.key).post(`/sales/${sold.sale_id}/refund`);
        expect(pending.body.refund.status).toBe('pending');
        expect((await cardPayment(pgStore.key, sold.id)).body.status).toBe('approved');
        const order = [...pg.orders.values()].find((o) => o.code === sold.id)!;
        pg.settleRefund(order.charges[0]!.id, 'refunded');
        expect(await pg.postWebhook(pgStore.webhookUrl, pg.webhook('charge.refunded', order.id))).toBe(200);
        await until(pgStore.key, sold.id, 'refunded');
        const sale = (await api.as(pgStore.key).get(`/sales/${sold.sale_id}`)).body;
        expect(sale).toMatchObject({ status: 'refunded', refund: { status: 'succeeded' } });
        expect((await storeEvents(api, pgStore.storeId)).map((e) => e.type)).toEqual([
          'card_payment.approved',
          'sale.approved',
          'card_payment.refunded',
          'sale.refunded',
        ]);
      } finally {
        pg.holdRefunds = false;
      }
    });

    it('a chargeback the PSP notifies: the sale is charged_back, the payment stays approved', async () => {
      const store = await liveStore('mercadopago');
      const paid = (
        await payByCard(api, store.key, {
          amount: 90,
          card: { token: mpCardToken('approved'), brand: 'visa' },
        })
      ).body;
      await mp.chargeBack(mpPaymentOf(paid.id).id);
      const sale = await eventually(async () => {
        const current = (await api.as(store.key).get(`/sales/${paid.sale_id}`)).body;
        return current.status === 'charged_back' ? current : undefined;
      });
      expect(sale.status).toBe('charged_back');
      expect((await cardPayment(store.key, paid.id)).body.status).toBe('approved');
    });

    it('test and live stay apart: a test key never sees a live payment', async () => {
      const store = await liveStore('pagarme');
      const live = (
        await payByCard(api, store.key, { amount: 30, card: { token: pg.issueToken('approved') } })
      ).body;
      const simulated = (
        await payByCard(api, store.testKey, { amount: 30, card: { token: 'tok_test_approved' } })
      ).body;
      expect(simulated.provider).toBe('simulated');
      expectError(await cardPayment(store.testKey, live.id), 404, 'not_found');
      expect(
        (await api.as(store.testKey).get('/payments/card')).body.data.map((p: { id: string }) => p.id),
      ).toEqual([simulated.id]);
      expect(
        (await api.as(store.key).get('/payments/card')).body.data.map((p: { id: string }) => p.id),
      ).toEqual([live.id]);
      expectError(await api.as(store.testKey).get(`/sales/${live.sale_id}`), 404, 'not_found');
    });
  },
  {
    config: {
      publicUrl: relay.url,
      pspAllowedHosts: FAKE_PSP_ALLOWED_HOSTS,
      pspRequestTimeoutMs: 2000,
      cardReconcileScheduleMs: [150, 300],
    },
  },
);

afterAll(() => relay.close());
