import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQr } from '../pix/pix-test-helpers.js';
import {
  axeViolations,
  chromiumAvailable,
  chromiumSuiteTitle,
  failWithoutRequiredChromium,
  launchChromium,
  saveScreenshot,
  watchPage,
} from '../support/chromium.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import {
  allowedHosts,
  eventually,
  requestsTo,
  uniqueUrl,
  useReceiverAndWorker,
} from '../webhooks/delivery-harness.js';
import { chargeOfOrder, createRefusedCoupons, createShop, placeOrder } from './page-support.js';
import type { Shop } from './page-support.js';

/**
 * A buyer in a real browser (Debian's Chromium through playwright-core) against the real service:
 * keyboard only, coupon and bump, the QR, "Simular pagamento" and the confirmation without a reload.
 * Screenshots go to packages/server/test-artifacts/ (not committed).
 */

/** The merchant's image host: the one other origin the page may load from (answered here, offline). */
const IMAGE_ORIGIN = 'https://img.loja.example';
const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

let browser: Browser | undefined;
beforeAll(async () => {
  if (chromiumAvailable) browser = await launchChromium();
});
afterAll(() => browser?.close());

interface Watched {
  page: Page;
  context: BrowserContext;
  foreign: string[];
  problems: string[];
}

/** A fresh page that records requests to other origins (aborted) and every page error or console error. */
async function watchedPage(api: TestApi, width: number): Promise<Watched> {
  const context = await browser!.newContext({ viewport: { width, height: 900 }, locale: 'pt-BR' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.baseUrl });
  const page = await context.newPage();
  const watch = await watchPage(page, api.baseUrl, (url) =>
    url.origin === IMAGE_ORIGIN ? { status: 200, contentType: 'image/png', body: PIXEL } : null,
  );
  return { page, context, ...watch };
}

/** Types into the focused field, then moves on with Tab. */
async function typeAndTab(page: Page, text: string): Promise<void> {
  await page.keyboard.type(text);
  await page.keyboard.press('Tab');
}

failWithoutRequiredChromium();

describe.skipIf(!chromiumAvailable)(chromiumSuiteTitle('purchase page in headless Chromium'), () => {
  describeEachDatabase(
    'buyer flow',
    (api) => {
      const delivery = useReceiverAndWorker(api);
      let shop: Shop;
      beforeAll(async () => {
        shop = await createShop(api, { imagem: `${IMAGE_ORIGIN}/curso.png` });
        await api.as(shop.key).patch(`/checkouts/${shop.checkoutId}`, {
          settings_json: {
            checkout_logo_enabled: true,
            checkout_logo_url: `${IMAGE_ORIGIN}/logo.png`,
            checkout_subtitulo: 'Aprenda do zero',
            checkout_fundo_tipo: 'gradiente',
            checkout_fundo_cor: '#DDEEFF',
          },
        });
        await api.as(shop.key).post('/coupons', { code: 'VIOLAO10', percent_off: 10 });
        await api
          .as(shop.key)
          .patch(`/products/${shop.bump.id}`, { link_acesso: 'https://members.example.com/ebook' });
      });

      it('keyboard only: coupon, bump, Pix QR that decodes to copy_paste, simulate, confirmation without reload; sale and webhooks', async () => {
        const receiver = delivery.receiver();
        const hook = uniqueUrl(receiver);
        await api.as(shop.key).post('/webhooks', { url: hook, events: ['pix.paid', 'sale.approved'] });
        const { page, context, foreign, problems } = await watchedPage(api, 360);

        await page.goto(`${api.baseUrl}${shop.pagePath}`);
        expect(await axeViolations(page)).toEqual([]);
        await saveScreenshot(page, `product-360-${api.dialect}.png`);
        await page.setViewportSize({ width: 1280, height: 900 });
        await saveScreenshot(page, `product-1280-${api.dialect}.png`);
        await page.setViewportSize({ width: 360, height: 900 });

        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('name');
        await typeAndTab(page, 'Maria da Silva');
        await typeAndTab(page, 'maria@example.com');
        await typeAndTab(page, '529.982.247-25');
        await typeAndTab(page, '(11) 98765-4321');
        await typeAndTab(page, 'violao10');
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('apply-coupon');
        await page.keyboard.press('Enter');
        await page.locator('#coupon-status', { hasText: 'Cupom aplicado: − R$ 10,00' }).waitFor();
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('bump');
        await page.keyboard.press('Space');
        await page.locator('#total', { hasText: 'R$ 99,90' }).waitFor();
        // A test store takes (simulated) cards: the payment method tabs come first, Pix chosen.
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('method-pix');
        await page.keyboard.press('Tab');
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('submit');
        await Promise.all([page.waitForURL(/\/p\/o\/[A-Za-z0-9_-]{22}$/), page.keyboard.press('Enter')]);

        const token = page.url().split('/').pop()!;
        const charge = (await api.as(shop.key).get(`/payments/pix/${await chargeOfOrder(api, token)}`)).body;
        const qr = await page.locator('img.qr').getAttribute('src');
        expect(decodeQr(qr!.replace('data:image/png;base64,', ''))).toBe(charge.pix.copy_paste);
        expect(await page.locator('#copy-paste').inputValue()).toBe(charge.pix.copy_paste);
        expect(await page.locator('#countdown').textContent()).toMatch(/^(29|30):\d\d$/);
        expect(await axeViolations(page)).toEqual([]);
        await saveScreenshot(page, `order-360-${api.dialect}.png`);
        await page.setViewportSize({ width: 1280, height: 900 });
        await saveScreenshot(page, `order-1280-${api.dialect}.png`);

        await page.locator('#copy').focus();
        await page.keyboard.press('Enter');
        await page.locator('#copy', { hasText: 'Copiado!' }).waitFor();
        expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(charge.pix.copy_paste);

        // No reload: a marker set on this document survives until the confirmation shows.
        await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
        await page.locator('#simulate').focus();
        await page.keyboard.press('Enter');
        await page.locator('#paid').waitFor({ state: 'visible' });
        expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
        expect(await page.locator('#pending').isHidden()).toBe(true);
        // The main product's and the bump's links, placed without a reload.
        const links = await page
          .locator('#access a')
          .evaluateAll((anchors) => anchors.map((a) => [a.textContent, a.getAttribute('href')]));
        expect(links).toEqual([
          ['Acessar Curso de Violão', 'https://members.example.com/violao'],
          ['Acessar E-book bônus', 'https://members.example.com/ebook'],
        ]);
        await saveScreenshot(page, `paid-1280-${api.dialect}.png`);

        const sale = (await api.as(shop.key).get('/sales')).body.data.find(
          (s: any) => s.pix_charge_id === charge.id,
        );
        expect(sale).toMatchObject({
          amount: 99.9,
          product_id: shop.product.id,
          coupon: { code: 'VIOLAO10', discount: 10 },
          customer: {
            name: 'Maria da Silva',
            email: 'maria@example.com',
            document: '52998224725',
            whatsapp: '+5511987654321',
          },
        });
        expect(sale.items.map((i: any) => [i.kind, i.product_id, i.amount])).toEqual([
          ['product', shop.product.id, 90],
          ['order_bump', shop.bump.id, 9.9],
        ]);
        const types = await eventually(async () => {
          const got = requestsTo(receiver, hook).map((r) => JSON.parse(r.body).type as string);
          return got.length >= 2 ? got.sort() : undefined;
        });
        expect(types).toEqual(['pix.paid', 'sale.approved']);
        expect(foreign, 'requests to other origins').toEqual([]);
        expect(problems, 'errors in the page (CSP violations included)').toEqual([]);
        await context.close();
      }, 90_000);

      it('shows invalid CPF and e-mail next to their fields, and refuses an exhausted or expired coupon with a message', async () => {
        await createRefusedCoupons(api, shop, { exhausted: 'ESGOTADO', expired: 'VENCIDO' });
        const { page, context, problems } = await watchedPage(api, 360);
        await page.goto(`${api.baseUrl}${shop.pagePath}`);
        await page.fill('#name', 'Maria da Silva');
        await page.fill('#email', 'maria@');
        await page.fill('#document', '529.982.247-24');
        await page.click('#submit');
        await page.locator('#document-error', { hasText: 'Informe um CPF ou CNPJ válido.' }).waitFor();
        expect(await page.locator('#email-error').textContent()).toBe(
          'Informe um e-mail válido, como nome@exemplo.com.',
        );
        expect(await page.locator('#email').getAttribute('aria-invalid')).toBe('true');
        expect(await page.locator('#document').getAttribute('aria-invalid')).toBe('true');
        expect(await page.locator('#name').getAttribute('aria-invalid')).toBeNull();
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
        // Fixing a field clears its error at once; the others stay until they are fixed.
        await page.fill('#email', 'maria@example.com');
        expect(await page.locator('#email-error').isHidden()).toBe(true);
        expect(await page.locator('#email').getAttribute('aria-invalid')).toBeNull();
        expect(await page.locator('#document-error').isVisible()).toBe(true);
        expect(await page.locator('#document').getAttribute('aria-invalid')).toBe('true');

        for (const [code, message] of [
          ['ESGOTADO', 'Este cupom esgotou.'],
          ['VENCIDO', 'Este cupom expirou.'],
        ]) {
          await page.fill('#coupon', code!);
          await page.click('#apply-coupon');
          await page.locator('#coupon-error', { hasText: message! }).waitFor();
          expect(await page.locator('#total').textContent()).toBe('R$ 100,00');
        }
        // The refused order's 400 is logged by the browser as a failed load; nothing else may be.
        expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
        await context.close();
      }, 60_000);

      it('at 1280 px a product without an image takes the whole card; with one, the image has its 220 px column', async () => {
        const plain = await createShop(api, { slug: 'sem-imagem' }, 'Loja Sem Imagem');
        const { page, context, problems } = await watchedPage(api, 1280);
        const widths = async (path: string) => {
          await page.goto(`${api.baseUrl}${path}`);
          return page.evaluate(() => {
            const card = document.querySelector('.product')!;
            const text = document.getElementById('product-name')!.parentElement!;
            const style = getComputedStyle(card);
            const inner = card.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            const image = document.querySelector('.product-image');
            return { inner, text: text.clientWidth, image: image?.clientWidth ?? null };
          });
        };
        const without = await widths(plain.pagePath);
        expect(without.image).toBeNull();
        expect(without.text).toBe(without.inner);
        const withImage = await widths(shop.pagePath);
        expect(withImage.image).toBe(220);
        expect(withImage.text).toBeLessThan(withImage.inner - 220);
        expect(problems).toEqual([]);
        await context.close();
      }, 60_000);

      it('an expired Pix shows at once and the buyer gets a new one for the same order', async () => {
        const { page, context, problems } = await watchedPage(api, 360);
        await page.goto(`${api.baseUrl}${shop.pagePath}`);
        await page.fill('#name', 'João Souza');
        await page.fill('#email', 'joao@example.com');
        await page.fill('#document', '11.222.333/0001-81');
        await Promise.all([page.waitForURL(/\/p\/o\//), page.click('#submit')]);
        const token = page.url().split('/').pop()!;
        const first = await chargeOfOrder(api, token);
        await api.as(shop.key).post(`/payments/pix/${first}/simulate_expiration`);
        await page.locator('#expired').waitFor({ state: 'visible' });
        expect(await axeViolations(page)).toEqual([]);
        await Promise.all([page.waitForEvent('load'), page.click('#renew')]);
        await page.locator('#pending').waitFor({ state: 'visible' });
        const second = await chargeOfOrder(api, token);
        expect(second).not.toBe(first);
        const charge = (await api.as(shop.key).get(`/payments/pix/${second}`)).body;
        expect(await page.locator('#copy-paste').inputValue()).toBe(charge.pix.copy_paste);
        expect(page.url()).toBe(`${api.baseUrl}/p/o/${token}`);
        expect(problems).toEqual([]);
        await context.close();
      }, 60_000);

      it('a Pix the store cancels while the buyer watches: the canceled card shows without a reload, focused', async () => {
        const { token } = await placeOrder(api, shop);
        const { page, context, foreign, problems } = await watchedPage(api, 360);
        await page.goto(`${api.baseUrl}/p/o/${token}`);
        await page.locator('#pending').waitFor({ state: 'visible' });
        await page.evaluate(() => ((window as unknown as { marker: number }).marker = 7));
        const canceled = await api
          .as(shop.key)
          .post(`/payments/pix/${await chargeOfOrder(api, token!)}/cancel`);
        expect(canceled.status).toBe(200);
        await page.locator('#canceled').waitFor({ state: 'visible' });
        expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(7);
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('canceled-title');
        expect(await page.locator('#pending').isHidden()).toBe(true);
        expect(await page.locator('#renew').isVisible()).toBe(false);
        expect(await page.locator('#new-order').getAttribute('href')).toBe(shop.pagePath);
        expect(await axeViolations(page)).toEqual([]);
        await saveScreenshot(page, `canceled-360-${api.dialect}.png`);
        // Reloaded, the page says the same, with no "new Pix" button at all.
        await page.reload();
        expect(await page.locator('#canceled').isVisible()).toBe(true);
        expect(await page.locator('#renew').count()).toBe(0);
        expect(foreign, 'requests to other origins').toEqual([]);
        expect(problems, 'errors in the page (CSP violations included)').toEqual([]);
        await context.close();
      }, 60_000);

      it('a recurring product is sold as a subscription: "por mês" wording, what the bank authorises, one QR that pays and authorises', async () => {
        const monthly = (
          await api.as(shop.key).post('/products', {
            nome: 'Clube do Violão',
            preco: 49.9,
            recorrencia: 'mensal',
            link_acesso: 'https://members.example.com/clube',
          })
        ).body;
        const { page, context, foreign, problems } = await watchedPage(api, 360);
        await page.goto(`${api.baseUrl}/p/${shop.handle}/${monthly.slug}`);
        expect(await page.locator('.price').textContent()).toBe('R$ 49,90 por mês');
        expect(await page.locator('#total').textContent()).toBe('R$ 49,90 por mês');
        expect(await page.locator('#subscription-note').textContent()).toContain('Pix Automático');
        expect(await page.locator('#submit').textContent()).toBe('Assinar com Pix');
        // No bump and no coupon on a subscription, whatever the checkout offers.
        expect(await page.locator('#bump').count()).toBe(0);
        expect(await page.locator('#coupon').count()).toBe(0);
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
        expect(await axeViolations(page)).toEqual([]);
        await saveScreenshot(page, `subscription-product-360-${api.dialect}.png`);

        await page.keyboard.press('Tab');
        await typeAndTab(page, 'Maria da Silva');
        await typeAndTab(page, 'maria@example.com');
        await typeAndTab(page, '529.982.247-25');
        await typeAndTab(page, '(11) 98765-4321');
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('submit');
        await Promise.all([page.waitForURL(/\/p\/o\/[A-Za-z0-9_-]{22}$/), page.keyboard.press('Enter')]);

        const token = page.url().split('/').pop()!;
        const chargeId = await chargeOfOrder(api, token);
        const [subscription] = (await api.as(shop.key).get(`/subscriptions?product_id=${monthly.id}`)).body
          .data;
        expect(subscription).toMatchObject({ status: 'pending', first_charge_id: chargeId, amount: 49.9 });
        expect(subscription.order_id).not.toBeNull();
        const charge = (await api.as(shop.key).get(`/payments/pix/${chargeId}`)).body;
        const qr = await page.locator('img.qr').getAttribute('src');
        expect(decodeQr(qr!.replace('data:image/png;base64,', ''))).toBe(charge.pix.copy_paste);
        expect(await page.locator('#copy-paste').inputValue()).toBe(charge.pix.copy_paste);
        expect(await page.locator('#pay-title').textContent()).toBe('Pague e autorize com Pix');
        expect(await page.locator('#authorisation').textContent()).toBe(
          'Ao pagar este Pix, você autoriza no app do seu banco o Pix Automático de Loja Teste: cobranças de R$ 49,90 por mês, até você cancelar pelo próprio banco.',
        );
        expect(await page.locator('.summary .total').textContent()).toBe('Total: R$ 49,90 por mês');
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
        expect(await axeViolations(page)).toEqual([]);
        await saveScreenshot(page, `subscription-order-360-${api.dialect}.png`);

        await page.locator('#simulate').focus();
        await page.keyboard.press('Enter');
        await page.locator('#paid').waitFor({ state: 'visible' });
        expect(await page.locator('#paid-title').textContent()).toBe('Assinatura ativa!');
        expect(await page.locator('#access a').getAttribute('href')).toBe(
          'https://members.example.com/clube',
        );
        expect((await api.as(shop.key).get(`/subscriptions/${subscription.id}`)).body).toMatchObject({
          status: 'active',
          cycle: 1,
        });
        const sale = (await api.as(shop.key).get('/sales')).body.data.find(
          (s: any) => s.pix_charge_id === chargeId,
        );
        expect(sale).toMatchObject({ subscription_id: subscription.id, cycle: 1, amount: 49.9 });
        expect(foreign, 'requests to other origins').toEqual([]);
        expect(problems, 'errors in the page (CSP violations included)').toEqual([]);
        await context.close();
      }, 90_000);

      it('an expired subscription order offers to subscribe again, never a new Pix for the same authorisation', async () => {
        const weekly = (
          await api
            .as(shop.key)
            .post('/products', { nome: 'Aula semanal', preco: 15, recorrencia: 'semanal' })
        ).body;
        const { token } = await placeOrder(api, { ...shop, pagePath: `/p/${shop.handle}/${weekly.slug}` });
        await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, token!)}/simulate_expiration`);
        const { page, context, problems } = await watchedPage(api, 360);
        await page.goto(`${api.baseUrl}/p/o/${token}`);
        await page.locator('#expired').waitFor({ state: 'visible' });
        expect(await page.locator('#renew').count()).toBe(0);
        expect(await page.locator('#subscribe-again').getAttribute('href')).toBe(
          `/p/${shop.handle}/${weekly.slug}`,
        );
        expect(await axeViolations(page)).toEqual([]);
        expect(problems).toEqual([]);
        await context.close();
      }, 60_000);
    },
    { config: { webhookAllowedHosts: allowedHosts, orderRateLimitPerMinute: 1000 } },
  );

  describeEachDatabase(
    'coupon tries over the quote limit',
    (api) => {
      it('shows the 429 message under the coupon field, with the total unchanged', async () => {
        const shop = await createShop(api);
        await api.as(shop.key).post('/coupons', { code: 'VALE5', amount_off: 5 });
        const { page, context, problems } = await watchedPage(api, 360);
        await page.goto(`${api.baseUrl}${shop.pagePath}`);
        const apply = async (code: string) => {
          await page.fill('#coupon', code);
          const [quote] = await Promise.all([
            page.waitForResponse((response) => response.url().endsWith('/quote')),
            page.click('#apply-coupon'),
          ]);
          return quote.status();
        };
        expect([await apply('AAAA'), await apply('BBBB')]).toEqual([200, 200]);
        // The answer arrives before the script renders it: wait for the text, do not read it at once.
        await page.locator('#coupon-error', { hasText: /^Cupom inválido\.$/ }).waitFor();
        expect(await apply('VALE5')).toBe(429);
        await page.locator('#coupon-error', { hasText: /^Muitas tentativas\. Aguarde \d+ s/ }).waitFor();
        expect(await page.locator('#coupon').getAttribute('aria-invalid')).toBe('true');
        expect(await page.locator('#total').textContent()).toBe('R$ 100,00');
        // The browser logs the refused request as a failed load; nothing else may be logged.
        expect(problems.filter((p) => !p.includes('status of 429'))).toEqual([]);
        await context.close();
      }, 60_000);
    },
    { config: { orderRateLimitPerMinute: 2 } },
  );
});
