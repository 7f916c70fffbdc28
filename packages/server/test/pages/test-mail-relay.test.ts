import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EmailWorker } from '../../src/flows/send-emails.js';
import { parseTestMailAllow } from '../../src/platform/config/test-mail-allow.js';
import { startSmtpServer } from '../support/smtp-server.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { eventually } from '../webhooks/delivery-harness.js';
import {
  BUYER,
  createShop,
  pageRequest,
  placeOrder,
  saleOfOrder,
  startPageEmailWorker,
} from './page-support.js';
import type { Shop } from './page-support.js';

/*
 * No relay for strangers: on a store in test mode, anyone may place an order with any e-mail and press
 * "Simular pagamento". That sale's e-mail goes only to the store's team and STOREFRONT_TEST_MAIL_ALLOW;
 * a key holder's `simulate_payment` e-mails anyone, as before. The simulate action is rate limited
 * like orders.
 */

const FROM_DOMAIN = 'loja.example.com';
const smtp = await startSmtpServer();
afterAll(() => smtp.close());

const ALLOW = 'vip@parceiro.example, @equipe.example';

describeEachDatabase(
  'purchase page simulate: the no-relay rule for test sales',
  (api) => {
    let shop: Shop;
    let worker: EmailWorker;

    beforeAll(async () => {
      shop = await createShop(api, {}, 'Loja Demo');
      worker = startPageEmailWorker(api, smtp.ca);
    });
    afterAll(() => worker.stop());

    /** Places an order for `email` and pays it with the page's "Simular pagamento"; returns its sale. */
    async function simulatedSale(email: string) {
      const { res, token } = await placeOrder(api, shop, { email });
      expect(res.status, res.text).toBe(201);
      const paid = await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
      expect(paid.status, paid.text).toBe(200);
      return saleOfOrder(api, shop, token!);
    }

    const delivered = (saleId: string) =>
      eventually(async () =>
        smtp.messages.find((m) => m.parsed.messageId === `<sale-${saleId}@${FROM_DOMAIN}>`),
      );

    async function expectDelivered(sale: any, email: string) {
      const { to } = await delivered(sale.id);
      // The domain part of an address is case-insensitive (SMTP libraries write it lower-cased).
      expect(to.map((address) => address.toLowerCase())).toEqual([email.toLowerCase()]);
      await eventually(
        async () => (await api.as(shop.key).get(`/sales/${sale.id}`)).body.delivery_email.status === 'sent',
      );
    }

    it("a stranger's address gets nothing: the sale says skipped and why, and no job is queued", async () => {
      const stranger = 'alguem@qualquer.example';
      const sale = await simulatedSale(stranger);
      expect(sale.delivery_email).toEqual({
        status: 'skipped',
        attempts: 0,
        sent_at: null,
        last_error: expect.stringContaining('STOREFRONT_TEST_MAIL_ALLOW'),
      });
      expect(sale.delivery_email.last_error).toContain('Simular pagamento');
      const jobs = await api.db
        .selectFrom('email_jobs')
        .select('sale_id')
        .where('sale_id', '=', sale.id)
        .execute();
      expect(jobs).toEqual([]);

      // An allowed sale paid after it is delivered; by then nothing has gone to the stranger.
      await expectDelivered(await simulatedSale('vip@parceiro.example'), 'vip@parceiro.example');
      expect(smtp.messages.flatMap((m) => m.to)).not.toContain(stranger);
    });

    it('an address of the allow list is e-mailed, whatever its case', async () => {
      await expectDelivered(await simulatedSale('VIP@Parceiro.example'), 'VIP@Parceiro.example');
    });

    it('an address of an allowed @domain is e-mailed; a subdomain of it is not', async () => {
      await expectDelivered(await simulatedSale('ana@equipe.example'), 'ana@equipe.example');
      const sub = await simulatedSale('ana@sub.equipe.example');
      expect(sub.delivery_email.status).toBe('skipped');
    });

    it("the API's simulate_payment (a key holder of the store) e-mails the stranger as before", async () => {
      const stranger = 'outro@qualquer.example';
      const charge = await api.as(shop.key).post('/payments/pix', {
        amount: 10,
        customer: { name: BUYER.name, email: stranger },
      });
      expect(charge.status, charge.text).toBe(201);
      const paid = await api.as(shop.key).post(`/payments/pix/${charge.body.id}/simulate_payment`);
      expect(paid.status, paid.text).toBe(200);
      const { id } = await api.db
        .selectFrom('sales')
        .select('id')
        .where('pix_charge_id', '=', charge.body.id)
        .executeTakeFirstOrThrow();
      await expectDelivered({ id }, stranger);
    });
  },
  {
    config: {
      smtp: smtp.settings(`Loja Demo <vendas@${FROM_DOMAIN}>`),
      testMailAllow: parseTestMailAllow(ALLOW),
      orderRateLimitPerMinute: 1000,
    },
  },
);

const LIMIT = 4;

describeEachDatabase(
  'purchase page simulate: rate limited like orders',
  (api: TestApi) => {
    it(`counts with the orders of the same IP and store: request ${LIMIT} passes, the next is 429 with Retry-After`, async () => {
      const shop = await createShop(api);
      const { res, token } = await placeOrder(api, shop); // 1
      expect(res.status, res.text).toBe(201);
      const simulate = () => pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
      expect((await simulate()).status).toBe(200); // 2: paid
      expect((await simulate()).status).toBe(400); // 3: already paid, still counted
      expect((await simulate()).status).toBe(400); // 4
      const refused = await simulate();
      expect(refused.status).toBe(429);
      expect(refused.json.error.code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      // Another store's page is not held back by this one.
      const other = await createShop(api, {}, 'Outra Loja');
      const next = await placeOrder(api, other);
      expect(next.res.status, next.res.text).toBe(201);
      expect((await pageRequest(api, 'POST', `/p/o/${next.token}/simulate`, {})).status).toBe(200);
    });
  },
  { config: { orderRateLimitPerMinute: LIMIT } },
);
