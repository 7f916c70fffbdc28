import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmailWorker } from '../../src/flows/send-emails.js';
import type { EmailWorker } from '../../src/flows/send-emails.js';
import type { ConversionWorker } from '../../src/flows/send-meta-conversions.js';
import { formatBrl, toCents } from '../../src/platform/values/money.js';
import {
  newPixelId,
  sentTo,
  setMeta,
  sha256,
  startFakeGraph,
  startTestConversionWorker,
} from '../conversions/meta-support.js';
import { startSmtpServer } from '../support/smtp-server.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';
import { eventually, silentLog } from '../webhooks/delivery-harness.js';
import { CARD_BUYER, cardSale, chargeBack, interestFreeUpTo } from './card-sale-support.js';

const smtp = await startSmtpServer();
const graph = await startFakeGraph();
afterAll(async () => {
  await smtp.close();
  await graph.close();
});

let buyers = 0;

describeEachDatabase(
  'a card sale’s delivery e-mail and Meta Purchase',
  (api) => {
    let emails: EmailWorker;
    let conversions: ConversionWorker;
    let key: string;

    beforeAll(async () => {
      let storeId: string;
      ({ key, storeId } = await api.createStore({ name: 'Loja do Cartão' }));
      await interestFreeUpTo(api, storeId, 3);
      emails = startEmailWorker({
        db: api.db,
        smtp: smtp.settings(),
        config: api.config,
        log: silentLog,
        tls: { ca: smtp.ca },
        pollIntervalMs: 50,
      });
      conversions = startTestConversionWorker(api, graph);
    });
    afterAll(async () => {
      await emails.stop();
      await conversions.stop();
    });

    /** A card sale to a buyer of its own; its payment, sale id and the e-mail the buyer received. */
    async function buyByCard(body: Record<string, unknown>) {
      const email = `comprador${++buyers}-${api.dialect}@example.com`;
      const sale = await cardSale(api, key, { customer: { ...CARD_BUYER, email }, ...body });
      const mail = await eventually(async () => smtp.messages.find((m) => m.to.includes(email)));
      return { ...sale, email, mail: mail! };
    }

    it('names the card and the installments where the default e-mail names the payment', async () => {
      const { mail } = await buyByCard({ amount: 100, installments: 3, description: 'Mentoria' });
      expect(mail.parsed.subject).toBe('Compra aprovada: Mentoria');
      expect(mail.parsed.text?.trim()).toBe(
        'Olá, Ana Souza!\n\nSeu pagamento de R$ 100,00 (Cartão de crédito, 3x de R$ 33,33) foi aprovado. Obrigado pela sua compra em Loja do Cartão!',
      );
      expect(mail.parsed.html).toContain('(Cartão de crédito, 3x de R$ 33,33) foi aprovado');
    });

    it('with interest, says what the buyer pays in all; one installment is "à vista"', async () => {
      const dear = await buyByCard({ amount: 100, installments: 6 });
      const total = formatBrl(toCents(dear.payment.total_amount));
      const each = formatBrl(toCents(dear.payment.installment_amount));
      expect(dear.mail.parsed.text).toContain(
        `Seu pagamento de ${total} (Cartão de crédito, 6x de ${each}) foi aprovado.`,
      );
      const once = await buyByCard({ amount: 42, installments: 1 });
      expect(once.mail.parsed.text).toContain(
        'Seu pagamento de R$ 42,00 (Cartão de crédito, à vista) foi aprovado.',
      );
    });

    it('a charged-back sale’s e-mail is not sent again', async () => {
      const { saleId } = await buyByCard({ amount: 30, installments: 1 });
      await chargeBack(api, saleId);
      const refusal = expectError(
        await api.as(key).post(`/sales/${saleId}/resend_delivery_email`),
        400,
        'invalid_request',
        null,
      );
      expect(refusal.message).toBe('This sale was charged back; its delivery e-mail is not sent again.');
    });

    it('sends Meta a Purchase for a card sale as for Pix: the goods’ price, the sale’s id, the buyer hashed', async () => {
      const pixelId = newPixelId();
      await setMeta(api, key, { pixel_id: pixelId, access_token: 'EAAB-card-token' });
      const { saleId, payment, email } = await buyByCard({ amount: 100, installments: 6 });
      expect(payment.total_amount).toBeGreaterThan(100);
      const [purchase] = await eventually(
        async () => sentTo(graph, pixelId).length > 0 && sentTo(graph, pixelId),
      );
      expect(purchase!.event).toMatchObject({
        event_name: 'Purchase',
        event_id: saleId,
        // Made through the API, not on a page: like an API Pix charge's sale.
        action_source: 'other',
        user_data: { em: [sha256(email)], external_id: [sha256('52998224725')] },
        custom_data: { currency: 'BRL', value: 100 },
      });
      await setMeta(api, key, null);
    });
  },
  { config: { smtp: smtp.settings() } },
);
