import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmailWorker } from '../../src/flows/send-emails.js';
import type { EmailWorker } from '../../src/flows/send-emails.js';
import type { SmtpSettings } from '../../src/platform/config/config.js';
import { eventsFor } from '../pix/pix-test-helpers.js';
import { createProduct } from '../products/support.js';
import { SMTP_USER, startSmtpServer } from '../support/smtp-server.js';
import type { ReceivedMail, TestSmtpServer } from '../support/smtp-server.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { eventually, silentLog } from '../webhooks/delivery-harness.js';

/** Two quick retries after the first attempt: three attempts in all. */
const SCHEDULE = [50, 50];
const FROM_DOMAIN = 'loja.example.com';

const smtp = await startSmtpServer();
const smtps = await startSmtpServer({ secure: true });
afterAll(async () => {
  await smtp.close();
  await smtps.close();
});

const mailsFor = (server: TestSmtpServer, saleId: string): ReceivedMail[] =>
  server.messages.filter((m) => m.parsed.messageId === `<sale-${saleId}@${FROM_DOMAIN}>`);

/** A free port nobody listens on (yet). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Pays a test charge over the API; returns the sale id and the sale.approved event's object. */
async function buy(api: TestApi, key: string, storeId: string, body: Record<string, unknown>) {
  const charge = await api.as(key).post('/payments/pix', body);
  expect(charge.status, charge.text).toBe(201);
  const paid = await api.as(key).post(`/payments/pix/${charge.body.id}/simulate_payment`);
  expect(paid.status, paid.text).toBe(200);
  const { id: saleId } = await api.db
    .selectFrom('sales')
    .select('id')
    .where('pix_charge_id', '=', charge.body.id)
    .executeTakeFirstOrThrow();
  const [approved] = await eventsFor(api, storeId, saleId, 'sale.approved');
  return { saleId, charge: charge.body, approved: approved!.payload.data.object };
}

describeEachDatabase(
  'delivery e-mail over SMTP',
  (api) => {
    let key: string;
    let storeId: string;
    let worker: EmailWorker;

    const startWorker = (settings: SmtpSettings = smtp.settings(), ca = smtp.ca) =>
      startEmailWorker({
        db: api.db,
        smtp: settings,
        config: { ...api.config, emailRetryScheduleMs: SCHEDULE },
        log: silentLog,
        tls: { ca },
        pollIntervalMs: 50,
      });

    beforeAll(async () => {
      ({ key, storeId } = await api.createStore({ name: 'Loja da Ana & Cia' }));
      worker = startWorker();
    });
    afterAll(() => worker.stop());

    const getSale = async (saleId: string) => (await api.as(key).get(`/sales/${saleId}`)).body;
    /** The sale once its e-mail is no longer pending. */
    const settled = (saleId: string) =>
      eventually(async () => {
        const sale = await getSale(saleId);
        return sale.delivery_email?.status !== 'pending' && sale;
      });
    const jobsOf = (saleId: string) =>
      api.db.selectFrom('email_jobs').selectAll().where('sale_id', '=', saleId).execute();

    it("sends the product's e-mail over STARTTLS and AUTH: placeholders filled, HTML escaped, access link, Message-ID from the sale", async () => {
      const product = await createProduct(api, key, {
        nome: '<b>x</b>',
        link_acesso: 'https://cursos.example.com/acesso?aluno=1&turma=2',
        delivery_email_subject: 'Seu acesso a {{produto}}, {{nome}}',
        delivery_email_body:
          'Olá {{nome}},\n\nRecebemos {{valor}} pela compra de {{produto}} na {{loja}}.\nAcesse: {{link_acesso}}',
      });
      const { saleId, charge, approved } = await buy(api, key, storeId, {
        amount: 1234.56,
        product_id: product.id,
        customer: { name: 'Maria Souza', email: 'maria@example.com' },
      });
      expect(charge.product_id).toBe(product.id);
      // Queued in the sale's own transaction: the event already says so.
      expect(approved.product_id).toBe(product.id);
      expect(approved.delivery_email).toEqual({
        status: 'pending',
        attempts: 0,
        sent_at: null,
        last_error: null,
      });

      const sale = await settled(saleId);
      expect(sale.delivery_email).toEqual({
        status: 'sent',
        attempts: 1,
        sent_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        last_error: null,
      });
      expect(await jobsOf(saleId)).toEqual([]);

      const mails = mailsFor(smtp, saleId);
      expect(mails).toHaveLength(1);
      const [{ parsed, to, secure, user }] = mails as [ReceivedMail];
      expect(secure).toBe(true); // upgraded with STARTTLS, which the server offers
      expect(user).toBe(SMTP_USER);
      expect(to).toEqual(['maria@example.com']);
      expect(parsed.from?.value).toEqual([{ name: 'Loja Teste', address: 'vendas@loja.example.com' }]);
      expect(parsed.subject).toBe('Seu acesso a <b>x</b>, Maria Souza');
      expect(parsed.text?.trim()).toBe(
        'Olá Maria Souza,\n\nRecebemos R$ 1.234,56 pela compra de <b>x</b> na Loja da Ana & Cia.\n' +
          'Acesse: https://cursos.example.com/acesso?aluno=1&turma=2',
      );
      const html = String(parsed.html);
      expect(html).not.toContain('<b>');
      expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
      expect(html).toContain('Loja da Ana &amp; Cia');
      expect(html).toContain(
        '<a href="https://cursos.example.com/acesso?aluno=1&amp;turma=2">https://cursos.example.com/acesso?aluno=1&amp;turma=2</a>',
      );
      expect(html).toContain(
        'Recebemos R$ 1.234,56 pela compra de &lt;b&gt;x&lt;/b&gt; na Loja da Ana &amp; Cia.<br>',
      );
    });

    it('uses Portuguese defaults when the product leaves subject and body empty, and the charge description without a product', async () => {
      const product = await createProduct(api, key, {
        nome: 'Curso de Violão',
        link_acesso: 'https://ex.com/v',
      });
      const withProduct = await buy(api, key, storeId, {
        amount: 49.9,
        product_id: product.id,
        customer: { email: 'sem-nome@example.com' },
      });
      const bare = await buy(api, key, storeId, {
        amount: 10,
        description: 'Pedido 42',
        customer: { name: 'Rui', email: 'rui@example.com' },
      });
      expect((await settled(withProduct.saleId)).delivery_email.status).toBe('sent');
      expect((await settled(bare.saleId)).delivery_email.status).toBe('sent');

      const [first] = mailsFor(smtp, withProduct.saleId) as [ReceivedMail];
      expect(first.parsed.subject).toBe('Compra aprovada: Curso de Violão');
      expect(first.parsed.text?.trim()).toBe(
        'Olá, cliente!\n\nSeu pagamento de R$ 49,90 foi aprovado. Obrigado pela sua compra em Loja da Ana & Cia!\n\n' +
          'Acesse Curso de Violão: https://ex.com/v',
      );
      const [second] = mailsFor(smtp, bare.saleId) as [ReceivedMail];
      expect(second.parsed.subject).toBe('Compra aprovada: Pedido 42');
      expect(second.parsed.text?.trim()).toBe(
        'Olá, Rui!\n\nSeu pagamento de R$ 10,00 foi aprovado. Obrigado pela sua compra em Loja da Ana & Cia!',
      );
    });

    it('has no delivery e-mail when the customer gave no address', async () => {
      const { saleId, approved } = await buy(api, key, storeId, { amount: 5, customer: { name: 'Zé' } });
      expect(approved.delivery_email).toBeNull();
      expect((await getSale(saleId)).delivery_email).toBeNull();
      expect(await jobsOf(saleId)).toEqual([]);
      expectError(
        await api.as(key).post(`/sales/${saleId}/resend_delivery_email`),
        400,
        'invalid_request',
        null,
      );
    });

    it('retries a 4xx reply and sends once the server accepts', async () => {
      smtp.refuseNext({ at: 'data', code: 451, message: '4.3.0 Try again later' });
      const refusedBefore = smtp.refusals.length;
      const { saleId } = await buy(api, key, storeId, {
        amount: 7,
        customer: { email: 'retry@example.com' },
      });
      const sale = await settled(saleId);
      expect(smtp.refusals.length).toBe(refusedBefore + 1);
      expect(sale.delivery_email).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
      expect(mailsFor(smtp, saleId)).toHaveLength(1);
    });

    it('fails at once on a permanent 5xx, with the reason in words', async () => {
      smtp.refuseNext({ at: 'rcpt', code: 550, message: '5.1.1 Mailbox unavailable' });
      const { saleId } = await buy(api, key, storeId, {
        amount: 7,
        customer: { email: 'nobody@example.com' },
      });
      const sale = await settled(saleId);
      expect(sale.delivery_email).toEqual({
        status: 'failed',
        attempts: 1,
        sent_at: null,
        last_error: expect.stringMatching(
          /^The mail server refused the message permanently: .*550 5\.1\.1 Mailbox unavailable/,
        ),
      });
      expect(mailsFor(smtp, saleId)).toHaveLength(0);
      expect(await jobsOf(saleId)).toEqual([]);
    });

    it('fails after the last retry of a temporary failure', async () => {
      const busy = { at: 'data', code: 421, message: '4.7.0 Busy' } as const;
      smtp.refuseNext(busy, busy, busy);
      const { saleId } = await buy(api, key, storeId, { amount: 7, customer: { email: 'busy@example.com' } });
      const sale = await settled(saleId);
      expect(sale.delivery_email).toMatchObject({
        status: 'failed',
        attempts: SCHEDULE.length + 1,
        sent_at: null,
      });
      expect(sale.delivery_email.last_error).toMatch(
        /^The mail server asked to try again later: 421.*Gave up after 3 attempts\.$/,
      );
      expect(mailsFor(smtp, saleId)).toHaveLength(0);
    });

    it('sends each e-mail once with two workers, a retried job among them', async () => {
      const second = startWorker();
      try {
        smtp.refuseNext({ at: 'data', code: 451, message: '4.3.0 Try again later' });
        const sales = [];
        for (let i = 0; i < 12; i++) {
          sales.push(
            (await buy(api, key, storeId, { amount: 1 + i, customer: { email: `two-${i}@example.com` } }))
              .saleId,
          );
        }
        const settledSales = await Promise.all(sales.map(settled));
        expect(settledSales.map((s) => s.delivery_email.status)).toEqual(sales.map(() => 'sent'));
        for (const saleId of sales) expect(mailsFor(smtp, saleId)).toHaveLength(1);
        const attempts = settledSales.map((s) => s.delivery_email.attempts).sort();
        expect(attempts).toEqual([...Array(11).fill(1), 2]);
      } finally {
        await second.stop();
      }
    });

    it('retries a refused connection, and a resend pulls the waiting job forward', async () => {
      await worker.stop();
      const port = await freePort();
      const slow = startEmailWorker({
        db: api.db,
        smtp: { ...smtp.settings(), port },
        config: { ...api.config, emailRetryScheduleMs: [3_600_000] },
        log: silentLog,
        tls: { ca: smtp.ca },
        pollIntervalMs: 50,
      });
      let late: TestSmtpServer | undefined;
      try {
        const { saleId } = await buy(api, key, storeId, {
          amount: 3,
          customer: { email: 'later@example.com' },
        });
        const waiting = await eventually(async () => {
          const sale = await getSale(saleId);
          return sale.delivery_email.attempts === 1 && sale;
        });
        expect(waiting.delivery_email).toEqual({
          status: 'pending',
          attempts: 1,
          sent_at: null,
          last_error: `Could not connect to the mail server at 127.0.0.1:${port}: the connection was refused.`,
        });
        const [job] = await jobsOf(saleId);
        expect(Date.parse(job!.next_attempt_at) - Date.now()).toBeGreaterThan(60_000);

        late = await startSmtpServer({ port });
        const resent = await api.as(key).post(`/sales/${saleId}/resend_delivery_email`);
        expect(resent.status, resent.text).toBe(202);
        expect(resent.body).toMatchObject({
          object: 'sale',
          id: saleId,
          delivery_email: { status: 'pending' },
        });
        expect(await jobsOf(saleId)).toHaveLength(1); // pulled forward, not doubled
        const sale = await settled(saleId);
        expect(sale.delivery_email).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
        expect(mailsFor(late, saleId)).toHaveLength(1);
      } finally {
        await slow.stop();
        await late?.close();
        worker = startWorker();
      }
    });

    it('sends over smtps:// (TLS from the first byte)', async () => {
      const tlsWorker = startWorker(smtps.settings(), smtps.ca);
      await worker.stop();
      try {
        const { saleId } = await buy(api, key, storeId, {
          amount: 3,
          customer: { email: 'tls@example.com' },
        });
        expect((await settled(saleId)).delivery_email.status).toBe('sent');
        const [mail] = mailsFor(smtps, saleId) as [ReceivedMail];
        expect(mail.secure).toBe(true);
        expect(mail.user).toBe(SMTP_USER);
      } finally {
        await tlsWorker.stop();
        worker = startWorker();
      }
    });

    describe('POST /sales/{id}/resend_delivery_email', () => {
      it('sends a sent e-mail again with the same Message-ID: 202, pending, then sent', async () => {
        const { saleId } = await buy(api, key, storeId, {
          amount: 9,
          customer: { email: 'again@example.com' },
        });
        const first = await settled(saleId);
        const resent = await api.as(key).post(`/sales/${saleId}/resend_delivery_email`);
        expect(resent.status, resent.text).toBe(202);
        expect(resent.body.delivery_email).toEqual({ ...first.delivery_email, status: 'pending' });
        const sale = await settled(saleId);
        expect(sale.delivery_email).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
        expect(sale.delivery_email.sent_at >= first.delivery_email.sent_at).toBe(true);
        const mails = mailsFor(smtp, saleId);
        expect(mails).toHaveLength(2);
        expect(mails[1]!.parsed.messageId).toBe(mails[0]!.parsed.messageId);
      });

      it('refuses a refunded sale, needs sales:write, and is 404 for an unknown or foreign sale', async () => {
        const { saleId } = await buy(api, key, storeId, {
          amount: 9,
          customer: { email: 'refund@example.com' },
        });
        await settled(saleId);
        expect((await api.as(key).post(`/sales/${saleId}/refund`)).status).toBe(200);
        const refused = expectError(
          await api.as(key).post(`/sales/${saleId}/resend_delivery_email`),
          400,
          'invalid_request',
          null,
        );
        expect(refused.message).toMatch(/refunded/);
        expect(await jobsOf(saleId)).toEqual([]);

        const readOnly = await api.createKey(storeId, ['sales:read']);
        expectError(
          await api.as(readOnly).post(`/sales/${saleId}/resend_delivery_email`),
          403,
          'insufficient_scope',
        );
        expectError(
          await api.as(key).post('/sales/00000000-0000-4000-8000-000000000000/resend_delivery_email'),
          404,
          'not_found',
        );
        const other = await api.createStore();
        expectError(await api.as(other.key).post(`/sales/${saleId}/resend_delivery_email`), 404, 'not_found');
        expectError(await api.as(key).post('/sales/nope/resend_delivery_email'), 404, 'not_found');
      });
    });

    describe('a charge naming its product', () => {
      it('refuses an unknown, foreign or archived product, writing nothing', async () => {
        const other = await api.createStore();
        const foreign = await createProduct(api, other.key);
        const archived = await createProduct(api, key);
        expect((await api.as(key).post(`/products/${archived.id}/archive`)).status).toBe(200);
        for (const productId of ['00000000-0000-4000-8000-000000000000', foreign.id, archived.id]) {
          const before = await api.db
            .selectFrom('pix_charges')
            .select('id')
            .where('store_id', '=', storeId)
            .execute();
          expectError(
            await api.as(key).post('/payments/pix', { amount: 1, product_id: productId }),
            400,
            'invalid_request',
            'product_id',
          );
          const after = await api.db
            .selectFrom('pix_charges')
            .select('id')
            .where('store_id', '=', storeId)
            .execute();
          expect(after.length).toBe(before.length);
        }
        expectError(
          await api.as(key).post('/payments/pix', { amount: 1, product_id: 'x' }),
          400,
          'invalid_request',
          'product_id',
        );
      });
    });
  },
  { config: { smtp: smtp.settings(), emailRetryScheduleMs: SCHEDULE } },
);

describeEachDatabase('delivery e-mail without SMTP_URL', (api) => {
  it('marks the sale skipped, queues nothing, and a resend says what to configure', async () => {
    const { key, storeId } = await api.createStore();
    const { saleId, approved } = await buy(api, key, storeId, {
      amount: 5,
      customer: { email: 'a@example.com' },
    });
    const skipped = { status: 'skipped', attempts: 0, sent_at: null, last_error: null };
    expect(approved.delivery_email).toEqual(skipped);
    expect((await api.as(key).get(`/sales/${saleId}`)).body.delivery_email).toEqual(skipped);
    expect(await api.db.selectFrom('email_jobs').selectAll().execute()).toEqual([]);
    const error = expectError(
      await api.as(key).post(`/sales/${saleId}/resend_delivery_email`),
      400,
      'invalid_request',
      null,
    );
    expect(error.message).toMatch(/SMTP_URL/);
  });
});
