import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { DECLINE_MESSAGES_PT } from '../../src/domain/kernel/card-outcome.js';
import { axeViolations, describeInChromium, saveScreenshot, watchPage } from '../support/chromium.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { BUYER, createShop, saleOfOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { orderRow } from './card-page-support.js';

/**
 * A buyer paying by card in headless Chromium at 360 px, keyboard only, against the real service with
 * the simulated provider: each outcome from the product page, the 3-D Secure page both ways, and an
 * order decided later. Also how long "Pagar" takes to show its outcome.
 */

const timings: Record<string, number> = {};

describeInChromium('card payments on the purchase page', (browser) => {
  describeEachDatabase('card buyer', (api: TestApi) => {
    let shop: Shop;
    beforeAll(async () => {
      shop = await createShop(api);
    });

    async function openPage() {
      const context = await browser().newContext({ viewport: { width: 360, height: 900 }, locale: 'pt-BR' });
      const page = await context.newPage();
      const watch = await watchPage(page, api.baseUrl);
      await page.goto(`${api.baseUrl}${shop.pagePath}`);
      return { page, context, ...watch };
    }

    const focused = (page: Page) => page.evaluate(() => document.activeElement?.id);

    /** Fills the buyer's data and picks the card tab, the test card and the installments, by keyboard. */
    async function chooseCard(page: Page, token: string, installments = '1') {
      await page.keyboard.press('Tab');
      for (const value of [BUYER.name, BUYER.email, BUYER.document, BUYER.whatsapp]) {
        await page.keyboard.type(value);
        await page.keyboard.press('Tab');
      }
      // The coupon field and its button, the bump, then the payment tabs.
      for (const id of ['coupon', 'apply-coupon', 'bump']) {
        expect(await focused(page)).toBe(id);
        await page.keyboard.press('Tab');
      }
      expect(await focused(page)).toBe('method-pix');
      await page.keyboard.press('ArrowRight');
      expect(await focused(page)).toBe('method-card');
      expect(await page.locator('#method-card').getAttribute('aria-selected')).toBe('true');
      await page.locator('#installments option').first().waitFor({ state: 'attached' });
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('test-card');
      await page.selectOption('#test-card', token);
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('installments');
      await page.selectOption('#installments', installments);
      await page.keyboard.press('Tab');
      expect(await focused(page)).toBe('submit');
      expect(await page.locator('#submit').textContent()).toBe('Pagar');
    }

    /** Presses "Pagar" and waits for `outcome`; records how long it took. */
    async function pay(page: Page, name: string, outcome: () => Promise<unknown>) {
      const started = performance.now();
      await Promise.all([outcome(), page.keyboard.press('Enter')]);
      timings[`${name} [${api.dialect}]`] = Math.round(performance.now() - started);
    }

    it('approved in 3 installments: the options read as the table, the order page shows it paid; the sale has them', async () => {
      const { page, context, foreign, problems } = await openPage();
      await chooseCard(page, 'tok_test_approved', '3');
      const table = (await api.as(shop.key).get('/payments/card/installments?amount=100')).body;
      const three = table.options.find((option: any) => option.installments === 3);
      const twelve = table.options.find((option: any) => option.installments === 12);
      const brl = (value: number) =>
        `R$ ${value
          .toFixed(2)
          .replace('.', ',')
          .replace(/\B(?=(\d{3})+,)/g, '.')}`;
      const labels = await page.locator('#installments option').allTextContents();
      expect(labels[0]).toBe('1x de R$ 100,00 sem juros');
      expect(labels[2]).toBe(`3x de ${brl(three.installment_amount)} (total ${brl(three.total_amount)})`);
      expect(labels[11]).toBe(`12x de ${brl(twelve.installment_amount)} (total ${brl(twelve.total_amount)})`);
      expect(await page.locator('#total').textContent()).toBe(brl(three.total_amount));
      expect(await axeViolations(page)).toEqual([]);
      await saveScreenshot(page, `card-tab-360-${api.dialect}.png`);

      await pay(page, 'approved', () => page.locator('#paid-title').waitFor());
      expect(page.url()).toMatch(/\/p\/o\/[A-Za-z0-9_-]{22}$/);
      expect(await page.locator('.installments').textContent()).toContain(
        `3x de ${brl(three.installment_amount)}`,
      );
      expect(await axeViolations(page)).toEqual([]);
      const token = page.url().split('/').pop()!;
      expect(await saleOfOrder(api, shop, token)).toMatchObject({
        payment_method: 'card',
        installments: 3,
        amount: 100,
      });
      const payment = (
        await api.as(shop.key).get(`/payments/card/${(await orderRow(api, token)).card_payment_id}`)
      ).body;
      expect(payment).toMatchObject({
        installments: 3,
        installment_amount: three.installment_amount,
        total_amount: three.total_amount,
      });
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    it('declined: the reason in Portuguese, the data kept, then Pix for the same order pays it', async () => {
      const { page, context, foreign, problems } = await openPage();
      await chooseCard(page, 'tok_test_declined_insufficient_funds');
      await pay(page, 'declined', () =>
        page.locator('#decline', { hasText: DECLINE_MESSAGES_PT.insufficient_funds }).waitFor(),
      );
      expect(page.url()).toBe(`${api.baseUrl}${shop.pagePath}`);
      expect(await page.locator('#name').inputValue()).toBe(BUYER.name);
      expect(await page.locator('#email').inputValue()).toBe(BUYER.email);
      expect(await focused(page)).toBe('decline-pix');
      expect(await axeViolations(page)).toEqual([]);
      await saveScreenshot(page, `card-declined-360-${api.dialect}.png`);
      await Promise.all([page.waitForURL(/\/p\/o\/[A-Za-z0-9_-]{22}$/), page.keyboard.press('Enter')]);
      await page.locator('img.qr').waitFor();
      const token = page.url().split('/').pop()!;
      const row = await orderRow(api, token);
      expect(row.payment_method).toBe('pix');
      expect((await api.as(shop.key).get(`/payments/card/${row.card_payment_id}`)).body.status).toBe(
        'declined',
      );
      await page.locator('#simulate').focus();
      await page.keyboard.press('Enter');
      await page.locator('#paid-title').waitFor();
      expect(await saleOfOrder(api, shop, token)).toMatchObject({ payment_method: 'pix', amount: 100 });
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });

    for (const [button, outcome] of [
      ['authenticate-3ds', 'paid'],
      ['fail-3ds', 'declined'],
    ] as const) {
      it(`3-D Secure through its page, ${button === 'fail-3ds' ? '"Falhar"' : '"Autenticar"'}: the order page shows it ${outcome}`, async () => {
        const { page, context, foreign, problems } = await openPage();
        await chooseCard(page, 'tok_test_3ds');
        await pay(page, `3-D Secure page [${button}]`, () => page.waitForURL(/\/p\/3ds\/[A-Za-z0-9_-]{43}$/));
        expect(await page.locator('h1').textContent()).toBe('Autenticação do cartão');
        expect(await axeViolations(page)).toEqual([]);
        await saveScreenshot(page, `card-3ds-360-${api.dialect}.png`);
        await page.keyboard.press('Tab');
        if (button === 'fail-3ds') await page.keyboard.press('Tab');
        expect(await focused(page)).toBe(button);
        await Promise.all([page.waitForURL(/\/p\/o\/[A-Za-z0-9_-]{22}$/), page.keyboard.press('Enter')]);
        if (outcome === 'paid') await page.locator('#paid-title').waitFor();
        else {
          await page
            .locator('#decline-message', { hasText: DECLINE_MESSAGES_PT.authentication_failed })
            .waitFor();
          expect(await page.locator('#pay-pix').isVisible()).toBe(true);
        }
        expect(await axeViolations(page)).toEqual([]);
        expect(foreign).toEqual([]);
        expect(problems).toEqual([]);
        await context.close();
      });
    }

    it('processing: "Pagamento em análise", then paid on the same page once simulate_settlement decides', async () => {
      const { page, context, foreign, problems } = await openPage();
      await chooseCard(page, 'tok_test_processing');
      await pay(page, 'processing', () => page.locator('#processing-title').waitFor());
      expect(await page.locator('#processing-title').textContent()).toBe('Pagamento em análise');
      expect(await axeViolations(page)).toEqual([]);
      await page.evaluate(() => ((window as any).sameDocument = true));
      const token = page.url().split('/').pop()!;
      const paymentId = (await orderRow(api, token)).card_payment_id;
      await api.as(shop.key).post(`/payments/card/${paymentId}/simulate_settlement`, { result: 'approved' });
      await page.locator('#paid-title').waitFor();
      expect(await page.evaluate(() => (window as any).sameDocument)).toBe(true);
      expect(await page.locator('#processing').isHidden()).toBe(true);
      expect(foreign).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
      console.info('"Pagar" to outcome in Chromium (ms):', JSON.stringify(timings));
    });
  });
});
