import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmailWorker } from '../../src/flows/send-emails.js';
import type { EmailWorker } from '../../src/flows/send-emails.js';
import { startSmtpServer } from '../support/smtp-server.js';
import { describeEachDatabase } from '../support/test-api.js';
import {
  allowedHosts,
  createEndpoint,
  eventually,
  expectValidSignature,
  requestsTo,
  silentLog,
  uniqueUrl,
  useReceiverAndWorker,
} from '../webhooks/delivery-harness.js';
import { BUYER, recurringProduct, subscribe } from './subscription-helpers.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';

const FROM_DOMAIN = 'loja.example.com';
const SUBSCRIPTION_EVENTS = [
  'subscription.created',
  'subscription.activated',
  'subscription.renewed',
  'subscription.past_due',
  'subscription.canceled',
];

const smtp = await startSmtpServer();
afterAll(() => smtp.close());

describeEachDatabase(
  'subscription events over signed webhooks, and the delivery e-mail and renewal receipts',
  (api) => {
    const delivery = useReceiverAndWorker(api);
    let mail: EmailWorker;
    beforeAll(() => {
      mail = startEmailWorker({
        db: api.db,
        smtp: smtp.settings(),
        config: { ...api.config, emailRetryScheduleMs: [50] },
        log: silentLog,
        tls: { ca: smtp.ca },
        pollIntervalMs: 50,
      });
    });
    afterAll(() => mail.stop());

    it('delivers each subscription event, carrying the subscription, in the order of its causes', async () => {
      const { key } = await api.createStore();
      const url = uniqueUrl(delivery.receiver());
      const endpoint = await createEndpoint(api, key, url, {
        events: [...SUBSCRIPTION_EVENTS, 'sale.approved'],
      });
      const product = await recurringProduct(api, key);
      const sub = (await subscribe(api, key, product.id)).body;
      await api.as(key).post(`/payments/pix/${sub.first_charge.id}/simulate_payment`);
      await api.as(key).post(`/subscriptions/${sub.id}/simulate_renewal`);
      await api.as(key).post(`/subscriptions/${sub.id}/simulate_failure`);
      await api.as(key).post(`/subscriptions/${sub.id}/cancel`);

      const requests = await eventually(async () => {
        const received = requestsTo(delivery.receiver(), url);
        return received.length >= 7 && received;
      });
      for (const request of requests) expectValidSignature(request, endpoint.secret);
      const events = requests
        .map((request) => JSON.parse(request.body))
        .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
      expect(events.map((event) => event.type)).toEqual([
        'subscription.created',
        'sale.approved',
        'subscription.activated',
        'sale.approved',
        'subscription.renewed',
        'subscription.past_due',
        'subscription.canceled',
      ]);
      const objects = events.filter((e) => e.type.startsWith('subscription.')).map((e) => e.data.object);
      expect(objects.map((o) => [o.id, o.status, o.cycle])).toEqual([
        [sub.id, 'pending', 0],
        [sub.id, 'active', 1],
        [sub.id, 'active', 2],
        [sub.id, 'past_due', 2],
        [sub.id, 'canceled', 2],
      ]);
      expect(objects.at(-1)).toMatchObject({
        object: 'subscription',
        cancel_reason: 'merchant',
        customer: BUYER,
      });
      const sales = events.filter((e) => e.type === 'sale.approved').map((e) => e.data.object);
      expect(sales.map((s) => [s.subscription_id, s.cycle])).toEqual([
        [sub.id, 1],
        [sub.id, 2],
      ]);
    });

    it('sends the delivery e-mail, in the subscription’s words where the product has none, on the first payment and a renewal receipt on each later cycle', async () => {
      const { key } = await api.createStore({ name: 'Clube & Cia' });
      const product = await recurringProduct(api, key, {
        link_acesso: 'https://membros.example.com/clube',
        delivery_email_subject: 'Bem-vindo ao {{produto}}',
      });
      const sub = (await subscribe(api, key, product.id)).body;
      await api.as(key).post(`/payments/pix/${sub.first_charge.id}/simulate_payment`);
      await api.as(key).post(`/subscriptions/${sub.id}/simulate_renewal`);
      const sales = await api.db
        .selectFrom('sales')
        .select(['id', 'cycle'])
        .where('subscription_id', '=', sub.id)
        .orderBy('cycle')
        .execute();
      expect(sales.map((s) => s.cycle)).toEqual([1, 2]);
      const mailOf = (saleId: string) =>
        eventually(async () =>
          smtp.messages.find((m) => m.parsed.messageId === `<sale-${saleId}@${FROM_DOMAIN}>`),
        );
      const welcome = await mailOf(sales[0]!.id);
      // The product's own subject; with no body of its own, the subscription's words and the access link.
      expect(welcome.parsed.subject).toBe('Bem-vindo ao Clube do Violão');
      expect(welcome.parsed.text).toContain('Sua assinatura de Clube do Violão em Clube & Cia está ativa');
      expect(welcome.parsed.text).toContain('Pix Automático');
      expect(welcome.parsed.text).toContain('https://membros.example.com/clube');
      expect(welcome.parsed.to).toMatchObject({ value: [{ address: BUYER.email, name: BUYER.name }] });
      const receipt = await mailOf(sales[1]!.id);
      expect(receipt.parsed.subject).toBe('Assinatura renovada: Clube do Violão');
      expect(receipt.parsed.text).toContain('R$ 49,90');
      expect(receipt.parsed.text).toContain('https://membros.example.com/clube');
      expect(receipt.parsed.html).toContain('Clube &amp; Cia');
      const sale = await eventually(async () => {
        const body = (await api.as(key).get(`/sales/${sales[1]!.id}`)).body;
        return body.delivery_email.status !== 'pending' && body;
      });
      expect(sale.delivery_email).toMatchObject({ status: 'sent', attempts: 1 });
    });

    it('the buyer is e-mailed when the store cancels their subscription (API and dashboard), not when they cancel it themselves', async () => {
      const { key, storeId } = await api.createStore({ name: 'Clube & Cia' });
      const product = await recurringProduct(api, key);
      const active = (await subscribe(api, key, product.id)).body;
      await api.as(key).post(`/payments/pix/${active.first_charge.id}/simulate_payment`);
      const pending = (await subscribe(api, key, product.id)).body;
      const byBuyer = (await subscribe(api, key, product.id)).body;
      await api.as(key).post(`/payments/pix/${byBuyer.first_charge.id}/simulate_payment`);
      await api.as(key).post(`/subscriptions/${byBuyer.id}/simulate_buyer_cancel`);

      expect((await api.as(key).post(`/subscriptions/${active.id}/cancel`)).status).toBe(200);
      const owner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'owner'));
      const done = await dashboardRequest(
        api.baseUrl,
        owner,
        'POST',
        `/dashboard/assinaturas/${pending.id}/cancelar`,
      );
      expect(done.status).toBe(303);

      const mailOf = (id: string) =>
        eventually(async () =>
          smtp.messages.find((m) => m.parsed.messageId === `<subscription-${id}-canceled@${FROM_DOMAIN}>`),
        );
      for (const id of [active.id, pending.id]) {
        const mail = await mailOf(id);
        expect(mail.parsed.subject).toBe('Assinatura cancelada: Clube do Violão');
        expect(mail.parsed.to).toMatchObject({ value: [{ address: BUYER.email, name: BUYER.name }] });
        expect(mail.parsed.text).toContain(
          'Clube & Cia cancelou a sua assinatura de Clube do Violão (R$ 49,90 por mês)',
        );
        expect(mail.parsed.html).toContain('Clube &amp; Cia');
      }
      const row = await eventually(async () => {
        const found = await api.db
          .selectFrom('subscriptions')
          .select(['cancel_email_status', 'cancel_email_sent_at'])
          .where('id', '=', active.id)
          .executeTakeFirstOrThrow();
        return found.cancel_email_status === 'sent' && found;
      });
      expect(row.cancel_email_sent_at).not.toBeNull();
      // The buyer's own cancellation sends them nothing of the kind.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(
        smtp.messages.some(
          (m) => m.parsed.messageId === `<subscription-${byBuyer.id}-canceled@${FROM_DOMAIN}>`,
        ),
      ).toBe(false);
    });
  },
  { config: { webhookAllowedHosts: allowedHosts, smtp: smtp.settings() } },
);
