import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmailWorker } from '../../src/flows/send-emails.js';
import type { EmailWorker } from '../../src/flows/send-emails.js';
import { abandonDueOrders } from '../../src/flows/abandon-orders.js';
import { parseTestMailAllow } from '../../src/platform/config/test-mail-allow.js';
import { startSmtpServer } from '../support/smtp-server.js';
import type { ReceivedMail } from '../support/smtp-server.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { eventually, silentLog } from '../webhooks/delivery-harness.js';
import { BUYER, chargeOfOrder, createShop, pageRequest, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { orderIdOf } from './orders-support.js';

/*
 * The abandoned-order e-mail, end to end: a store turns it on through PATCH /store, an order is
 * abandoned (the test-mode simulation sends at once; the sweep queues it for its delay), a real SMTP
 * server receives it, and its link is the order page, where the buyer renews the Pix and pays.
 */

const FROM_DOMAIN = 'loja.example.com';
const MINUTE = 60_000;
const smtp = await startSmtpServer();
afterAll(() => smtp.close());

const mailOf = (orderId: string): ReceivedMail[] =>
  smtp.messages.filter((m) => m.parsed.messageId === `<order-${orderId}-recovery@${FROM_DOMAIN}>`);

async function place(api: TestApi, shop: Shop, body: Record<string, unknown> = {}) {
  const { res, token } = await placeOrder(api, shop, body);
  expect(res.status, res.text).toBe(201);
  return { token: token!, id: await orderIdOf(api, token!) };
}

describeEachDatabase(
  'the abandoned-order e-mail',
  (api) => {
    let shop: Shop;
    let worker: EmailWorker;
    const getOrder = async (id: string) => (await api.as(shop.key).get(`/orders/${id}`)).body;
    const jobOf = (orderId: string) =>
      api.db.selectFrom('recovery_email_jobs').selectAll().where('order_id', '=', orderId).executeTakeFirst();

    beforeAll(async () => {
      // The service listens on a port of its own choosing: links are built on where it really is.
      api.config.publicUrl = api.baseUrl;
      shop = await createShop(api, {}, 'Loja do Zé & Cia');
      worker = startEmailWorker({
        db: api.db,
        smtp: api.config.smtp!,
        config: { ...api.config, emailRetryScheduleMs: [50] },
        log: silentLog,
        tls: { ca: smtp.ca },
        pollIntervalMs: 50,
      });
    });
    afterAll(() => worker.stop());

    it('is off by default: an abandoned order has no recovery e-mail', async () => {
      const { id } = await place(api, shop);
      const abandoned = (await api.as(shop.key).post(`/orders/${id}/simulate_abandonment`)).body;
      expect(abandoned.recovery_email).toBeNull();
      expect(await jobOf(id)).toBeUndefined();
    });

    it('simulate_abandonment sends it at once, with every placeholder filled, and its link renews the Pix', async () => {
      const patched = await api.as(shop.key).patch('/store', {
        recovery_email: {
          enabled: true,
          delay_minutes: 15,
          subject: '{{nome}}, falta pouco: {{produto}}',
          body: 'Oi {{nome}}, seu pedido de {{produto}} ({{valor}}) na {{loja}} espera você.\n\nPague aqui: {{link_pagamento}}',
        },
      });
      expect(patched.status, patched.text).toBe(200);
      const { token, id } = await place(api, shop);
      // A temporary refusal is retried on the e-mail schedule.
      smtp.refuseNext({ at: 'data', code: 451, message: '4.3.0 try again later' });
      const res = await api.as(shop.key).post(`/orders/${id}/simulate_abandonment`);
      expect(res.body.recovery_email).toEqual({ status: 'pending', sent_at: null });

      const [mail] = await eventually(async () => {
        const found = mailOf(id);
        return found.length > 0 ? found : undefined;
      });
      const link = `${api.baseUrl}/p/o/${token}`;
      expect(mail!.to).toEqual([BUYER.email]);
      expect(mail!.parsed.subject).toBe('Maria da Silva, falta pouco: Curso de Violão');
      expect(mail!.parsed.text).toContain(
        'Oi Maria da Silva, seu pedido de Curso de Violão (R$ 100,00) na Loja do Zé & Cia espera você.',
      );
      expect(mail!.parsed.text).toContain(`Pague aqui: ${link}`);
      expect(mail!.parsed.html).toContain('Loja do Zé &amp; Cia');
      expect(mail!.parsed.html).toContain(`<a href="${link}">${link}</a>`);
      expect(smtp.refusals.at(-1)).toMatchObject({ code: 451 });
      const sent = await eventually(async () => {
        const order = await getOrder(id);
        return order.recovery_email.status === 'sent' ? order : undefined;
      });
      expect(Date.parse(sent.recovery_email.sent_at)).toBeGreaterThan(Date.parse(sent.abandoned_at));
      expect(await jobOf(id)).toBeUndefined();

      // The link: the order page, which renews an expired Pix; paying it recovers the order.
      const firstCharge = await chargeOfOrder(api, token);
      await api.as(shop.key).post(`/payments/pix/${firstCharge}/simulate_expiration`);
      const page = await fetch(link);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('id="renew"');
      const renewed = await pageRequest(api, 'POST', `/p/o/${token}/renew`, {});
      expect(renewed.json.status).toBe('pending');
      expect((await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {})).json.status).toBe('paid');
      const paid = await getOrder(id);
      expect(paid).toMatchObject({ status: 'paid', recovered: true });
      expect(paid.pix_charge_id).not.toBe(firstCharge);
      // At most one per order.
      expect(mailOf(id)).toHaveLength(1);
    });

    it('the sweep queues it for the store’s delay after the abandonment; it goes out when due', async () => {
      const { id } = await place(api, shop);
      const createdAt = Date.parse((await getOrder(id)).created_at);
      const asOf = new Date(createdAt + 30 * MINUTE);
      await abandonDueOrders(api.db, api.config, asOf);
      const order = await getOrder(id);
      expect(order).toMatchObject({
        status: 'abandoned',
        recovery_email: { status: 'pending', sent_at: null },
      });
      const job = await jobOf(id);
      expect(job?.next_attempt_at).toBe(new Date(asOf.getTime() + 15 * MINUTE).toISOString());
      // Another sweep does not queue a second one.
      await abandonDueOrders(api.db, api.config, new Date(asOf.getTime() + MINUTE));
      const jobs = await api.db
        .selectFrom('recovery_email_jobs')
        .selectAll()
        .where('order_id', '=', id)
        .execute();
      expect(jobs).toHaveLength(1);
      expect(mailOf(id)).toHaveLength(0);

      // Its time comes (moved, rather than waited for): the worker sends it, once.
      await api.db
        .updateTable('recovery_email_jobs')
        .set({ next_attempt_at: new Date().toISOString() })
        .where('order_id', '=', id)
        .execute();
      await eventually(async () => (mailOf(id).length === 1 ? true : undefined));
      await eventually(async () =>
        (await getOrder(id)).recovery_email.status === 'sent' ? true : undefined,
      );
    });

    it('no relay for strangers: the sweep mails a test order only to allowed addresses; the simulation, a key holder’s act, mails anyone', async () => {
      const stranger = await place(api, shop, { email: 'alguem@outro.example.net' });
      const allowed = await place(api, shop, { email: 'Equipe@Example.com' });
      await abandonDueOrders(api.db, api.config, new Date(Date.now() + 31 * MINUTE));
      expect((await getOrder(stranger.id)).recovery_email).toEqual({ status: 'skipped', sent_at: null });
      expect(await jobOf(stranger.id)).toBeUndefined();
      expect((await getOrder(allowed.id)).recovery_email.status).toBe('pending');

      const simulated = await place(api, shop, { email: 'alguem@outro.example.net' });
      await api.as(shop.key).post(`/orders/${simulated.id}/simulate_abandonment`);
      const [mail] = await eventually(async () => {
        const found = mailOf(simulated.id);
        return found.length > 0 ? found : undefined;
      });
      expect(mail!.to).toEqual(['alguem@outro.example.net']);
      expect(mailOf(stranger.id)).toHaveLength(0);
    });

    it('never after payment or cancel: a waiting e-mail is dropped as skipped, and nothing arrives', async () => {
      const paid = await place(api, shop);
      const canceled = await place(api, shop);
      const asOf = new Date(Date.now() + 31 * MINUTE);
      await abandonDueOrders(api.db, api.config, asOf);
      for (const { id } of [paid, canceled])
        expect((await getOrder(id)).recovery_email.status).toBe('pending');

      await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, paid.token)}/simulate_payment`);
      await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, canceled.token)}/cancel`);
      expect(await getOrder(paid.id)).toMatchObject({
        status: 'paid',
        recovered: true,
        recovery_email: { status: 'skipped', sent_at: null },
      });
      expect(await getOrder(canceled.id)).toMatchObject({
        status: 'canceled',
        recovery_email: { status: 'skipped', sent_at: null },
      });
      expect(await jobOf(paid.id)).toBeUndefined();
      expect(await jobOf(canceled.id)).toBeUndefined();

      // A job a worker held while the payment committed (so it survived it) is settled, not sent.
      await api.db
        .insertInto('recovery_email_jobs')
        .values({
          order_id: paid.id,
          store_id: shop.storeId,
          attempts: 0,
          next_attempt_at: new Date().toISOString(),
          lease: null,
          created_at: new Date().toISOString(),
        })
        .execute();
      await eventually(async () => ((await jobOf(paid.id)) === undefined ? true : undefined));
      expect((await getOrder(paid.id)).recovery_email.status).toBe('skipped');
      expect(mailOf(paid.id)).toHaveLength(0);
      expect(mailOf(canceled.id)).toHaveLength(0);
    });
  },
  {
    config: {
      smtp: smtp.settings(`Loja do Zé <vendas@${FROM_DOMAIN}>`),
      orderRateLimitPerMinute: 1000,
      // The buyer of these tests (maria@example.com) may be mailed about test orders.
      testMailAllow: parseTestMailAllow('@example.com'),
    },
  },
);

describeEachDatabase(
  'the abandoned-order e-mail without SMTP',
  (api) => {
    it('is skipped: nothing is queued', async () => {
      const shop = await createShop(api);
      await api.as(shop.key).patch('/store', { recovery_email: { enabled: true } });
      const { id } = await place(api, shop);
      const res = await api.as(shop.key).post(`/orders/${id}/simulate_abandonment`);
      expect(res.body.recovery_email).toEqual({ status: 'skipped', sent_at: null });
      expect(
        await api.db.selectFrom('recovery_email_jobs').selectAll().where('order_id', '=', id).execute(),
      ).toEqual([]);
    });
  },
  { config: { smtp: null } },
);
