import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EmailWorker } from '../../src/flows/send-emails.js';
import { parseTestMailAllow } from '../../src/platform/config/test-mail-allow.js';
import { startSmtpServer } from '../support/smtp-server.js';
import type { ReceivedMail } from '../support/smtp-server.js';
import { describeEachDatabase } from '../support/test-api.js';
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
 * The buyer's side of the delivery e-mail: an order placed on the purchase page and paid with its
 * "Simular pagamento" action (or free) reaches a real SMTP server's inbox, naming what was bought.
 */

const FROM_DOMAIN = 'loja.example.com';
const smtp = await startSmtpServer();
afterAll(() => smtp.close());

const mailOf = (saleId: string): ReceivedMail | undefined =>
  smtp.messages.find((m) => m.parsed.messageId === `<sale-${saleId}@${FROM_DOMAIN}>`);

describeEachDatabase(
  'purchase page orders: the delivery e-mail',
  (api) => {
    let shop: Shop;
    let worker: EmailWorker;

    beforeAll(async () => {
      shop = await createShop(api, {}, 'Loja do Zé');
      const bump = await api
        .as(shop.key)
        .patch(`/products/${shop.bump.id}`, { link_acesso: 'https://members.example.com/ebook' });
      expect(bump.status, bump.text).toBe(200);
      worker = startPageEmailWorker(api, smtp.ca);
    });
    afterAll(() => worker.stop());

    const saleOf = (token: string) => saleOfOrder(api, shop, token);
    /** The sale's message in the inbox, once the worker sent it. */
    const delivered = (saleId: string) => eventually(async () => mailOf(saleId));

    it('a test order with the bump, paid with "Simular pagamento", mails the buyer one e-mail naming both items and their links', async () => {
      const { res, token } = await placeOrder(api, shop, { bump: true });
      expect(res.status, res.text).toBe(201);
      const paid = await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
      expect(paid.status, paid.text).toBe(200);
      expect(paid.json.status).toBe('paid');

      const sale = await saleOf(token!);
      expect(sale).toMatchObject({ payment_method: 'pix', amount: 109.9, refund: null });
      expect(sale.items.map((item: any) => item.kind)).toEqual(['product', 'order_bump']);

      const { parsed, to } = await delivered(sale.id);
      expect(to).toEqual([BUYER.email]);
      expect(parsed.subject).toBe('Compra aprovada: Curso de Violão e E-book bônus');
      const text = parsed.text ?? '';
      expect(text).toContain(`Olá, ${BUYER.name}!`);
      expect(text).toContain('R$ 109,90');
      expect(text).toContain('Obrigado pela sua compra em Loja do Zé!');
      expect(text).toContain('Seus acessos:');
      expect(text).toContain('- Curso de Violão: https://members.example.com/violao');
      expect(text).toContain('- E-book bônus: https://members.example.com/ebook');
      const html = String(parsed.html);
      expect(html).toContain(
        '<li>Curso de Violão: <a href="https://members.example.com/violao">https://members.example.com/violao</a></li>',
      );
      expect(html).toContain(
        '<li>E-book bônus: <a href="https://members.example.com/ebook">https://members.example.com/ebook</a></li>',
      );
      await eventually(async () => (await saleOf(token!)).delivery_email?.status === 'sent');
    });

    it('a free order (100% coupon) mails the buyer too, its sale shaped like any other', async () => {
      await api.as(shop.key).post('/coupons', { code: 'GRATIS', percent_off: 100 });
      const { res, token } = await placeOrder(api, shop, { coupon: 'GRATIS' });
      expect(res.status, res.text).toBe(201);

      const sale = await saleOf(token!);
      expect(sale).toMatchObject({
        payment_method: 'free',
        amount: 0,
        pix_charge_id: null,
        refunded_at: null,
        refund: null,
        coupon: { code: 'GRATIS', discount: 100 },
      });
      // Queued in the order's own transaction, like a paid sale's.
      expect(sale.delivery_email.status).toMatch(/^(pending|sent)$/);

      const { parsed, to } = await delivered(sale.id);
      expect(to).toEqual([BUYER.email]);
      expect(parsed.subject).toBe('Compra aprovada: Curso de Violão');
      expect(parsed.text).toContain('Acesse Curso de Violão: https://members.example.com/violao');
      expect(parsed.text).not.toContain('E-book');
    });
  },
  {
    config: {
      smtp: smtp.settings(`Loja do Zé <vendas@${FROM_DOMAIN}>`),
      // The buyer's domain is allowed: a test sale paid with "Simular pagamento" e-mails no stranger.
      testMailAllow: parseTestMailAllow('@example.com'),
      orderRateLimitPerMinute: 1000,
    },
  },
);
