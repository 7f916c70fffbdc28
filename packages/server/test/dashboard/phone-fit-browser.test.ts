import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { totpCode, totpStep } from '../../src/domain/accounts/totp.js';
import { hashOrderToken } from '../../src/domain/orders/order-object.js';
import { orderIdOf } from '../orders/orders-support.js';
import { chargeOfOrder, createShop, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { recurringProduct, subscribe } from '../subscriptions/subscription-helpers.js';
import { axeViolations, describeInChromium } from '../support/chromium.js';
import { addDashboardUser, dashboardBrowserLogin } from '../support/dashboard.js';
import type { DashboardUser } from '../support/dashboard.js';
import { phoneFit, phonePage } from '../support/dashboard-browser.js';
import { describeEachDatabase } from '../support/test-api.js';
import { paidSale } from './vendas-support.js';

/* Realistic data at its longest: names, e-mails and addresses a phone has to wrap. */
const LONG_NAME = 'Maria Aparecida Conceição Nascimento Albuquerque de Oliveira';
const LONG_EMAIL = 'maria.aparecida.conceicao.nascimento.albuquerque@provedor-de-email.example.com';
const LONG_PRODUCT = 'Curso Completo de Violão Popular Brasileiro para Iniciantes e Intermediários';
const LONG_URL =
  'https://integracoes.minha-loja-de-cursos-online.example.com/storefront/webhooks/recebedor-de-vendas-aprovadas?token=0123456789abcdef0123456789abcdef';

/** Page problems but the browser's own line for each refused form's 400 or 409 answer, which these tests provoke. */
const refusalsAside = (problems: string[]) =>
  problems.filter((problem) => !/Failed to load resource: .* status of (400|409)/.test(problem));

/** Slow on a busy machine: one browser, many pages per test. */
const BROWSER_TEST_MS = 300_000;

/**
 * Where the page put the person after an action: the URL's fragment, and the focused element (the
 * page's answer, `data-answer`), its text, role, section and whether the phone's screen shows it.
 */
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLElement;
    const box = element.getBoundingClientRect();
    return {
      hash: location.hash,
      answer: element.hasAttribute('data-answer'),
      role: element.getAttribute('role'),
      section: element.closest('section')?.id ?? null,
      text: (element.textContent ?? '').replace(/\s+/g, ' ').trim(),
      onScreen: box.top >= 0 && box.top < window.innerHeight,
    };
  });

/** Presses Enter on `target` (a field or button the keyboard reached) and waits for the page that answers. */
async function enterOn(page: Page, target: ReturnType<Page['getByRole']>, url: RegExp) {
  await target.focus();
  await Promise.all([page.waitForURL(url), page.keyboard.press('Enter')]);
  // The page gives its answer focus once loaded; what it focused is then checked by the caller.
  await page
    .waitForFunction(() => document.activeElement?.hasAttribute('data-answer'), null, { timeout: 5000 })
    .catch(() => {});
}

describeInChromium('the dashboard on a phone (360 × 740, isMobile)', (browser) => {
  describeEachDatabase('every page fits 360 px', (api) => {
    let shop: Shop;
    let owner: DashboardUser;
    let saleId: string;
    let endpointId: string;

    beforeAll(async () => {
      shop = await createShop(api, { nome: LONG_PRODUCT }, 'Loja de Cursos de Música da Maria Aparecida');
      owner = await addDashboardUser(api, shop.storeId, 'owner', LONG_EMAIL);
      await addDashboardUser(api, shop.storeId, 'viewer');
      saleId = await paidSale(api, shop.key, 1234.56, { name: LONG_NAME, email: LONG_EMAIL });
      const { token: abandoned } = await placeOrder(api, shop, { name: LONG_NAME, email: LONG_EMAIL });
      await api.as(shop.key).post(`/orders/${await orderIdOf(api, abandoned!)}/simulate_abandonment`);
      await api.db
        .updateTable('orders')
        .set({ recovery_email_status: 'sent' })
        .where('token_hash', '=', hashOrderToken(abandoned!))
        .execute();
      const { token: paid } = await placeOrder(api, shop, { name: LONG_NAME, email: LONG_EMAIL });
      await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, paid!)}/simulate_payment`);
      const recurring = await recurringProduct(api, shop.key, { nome: `${LONG_PRODUCT} (assinatura)` });
      await subscribe(api, shop.key, recurring.id);
      await api.as(shop.key).post('/coupons', { code: 'BEMVINDOALUNONOVO2026', percent_off: 10 });
      const endpoint = await api.as(shop.key).post('/webhooks', { url: LONG_URL, events: ['sale.approved'] });
      endpointId = endpoint.body.id;
    });

    it(
      'every dashboard page: no sideways scroll, every row field on screen, axe clean',
      { timeout: BROWSER_TEST_MS },
      async () => {
        const w = await phonePage(browser(), api);
        try {
          const { page } = w;
          await dashboardBrowserLogin(page, api.baseUrl, owner);
          const paths = [
            '/dashboard',
            '/dashboard/vendas',
            `/dashboard/vendas/${saleId}`,
            '/dashboard/pedidos',
            '/dashboard/assinaturas',
            '/dashboard/produtos',
            `/dashboard/produtos/${shop.product.id}`,
            '/dashboard/checkouts',
            `/dashboard/checkouts/${shop.checkoutId}`,
            '/dashboard/cupons',
            '/dashboard/cupons/novo',
            '/dashboard/desenvolvedores',
            `/dashboard/desenvolvedores/webhooks/${endpointId}`,
            '/dashboard/desenvolvedores/eventos',
            '/dashboard/configuracoes',
            '/dashboard/configuracoes/psp',
          ];
          const measured: Record<string, unknown> = {};
          for (const path of paths) {
            const response = await page.goto(`${api.baseUrl}${path}`);
            expect(response?.status(), path).toBe(200);
            measured[path] = { ...(await phoneFit(page)), axe: await axeViolations(page) };
          }
          const fit = { width: 360, offscreen: [], axe: [] };
          expect(measured).toEqual(Object.fromEntries(paths.map((path) => [path, fit])));
          expect(w.foreign).toEqual([]);
          expect(w.problems).toEqual([]);
        } finally {
          await w.close();
        }
      },
    );

    it(
      'Desenvolvedores and a sale with the keyboard: answers take focus, copy buttons, the refund dialog focuses Cancelar',
      { timeout: BROWSER_TEST_MS },
      async () => {
        const w = await phonePage(browser(), api);
        try {
          const { page } = w;
          await page
            .context()
            .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.baseUrl });
          await dashboardBrowserLogin(page, api.baseUrl, owner);
          await page.goto(`${api.baseUrl}/dashboard/desenvolvedores`);
          await page.getByLabel('todas', { exact: true }).check();
          await enterOn(page, page.getByRole('button', { name: 'Nova chave' }), /\/chaves#chaves$/);
          expect(await focused(page)).toMatchObject({ answer: true, section: 'chaves', onScreen: true });
          const key = await page.getByLabel('Nova chave de API.').inputValue();
          await page.keyboard.press('Tab'); // the key's field
          await page.keyboard.press('Tab'); // its "Copiar"
          await page.keyboard.press('Enter');
          await expect.poll(() => page.getByText('Copiado', { exact: true }).count()).toBe(1);
          expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
          expect(await axeViolations(page)).toEqual([]);
          expect((await phoneFit(page)).width).toBe(360);

          // A refused webhook address: the page opens at Endpoints de webhook, on the refusal.
          await page.getByLabel('URL', { exact: true }).fill('http://hooks.example.com/sem-https');
          await page.getByLabel('sale.approved', { exact: true }).check();
          await enterOn(page, page.getByLabel('URL', { exact: true }), /\/webhooks#webhooks$/);
          expect(await focused(page)).toMatchObject({
            answer: true,
            role: 'alert',
            section: 'webhooks',
            onScreen: true,
          });
          expect((await focused(page)).text).toContain('Endereço recusado');
          expect(await axeViolations(page)).toEqual([]);

          // Refund: the dialog opens on its safe choice, and Escape closes it with nothing done.
          await page.goto(`${api.baseUrl}/dashboard/vendas/${saleId}`);
          await page.getByRole('button', { name: 'Reembolsar' }).focus();
          await page.keyboard.press('Enter');
          const dialog = page.getByRole('dialog', { name: 'Reembolsar esta venda?' });
          await expect.poll(() => dialog.isVisible()).toBe(true);
          expect((await focused(page)).text).toBe('Cancelar');
          expect(await axeViolations(page)).toEqual([]);
          await page.keyboard.press('Escape');
          await expect.poll(() => dialog.isVisible()).toBe(false);
          expect((await api.as(shop.key).get(`/sales/${saleId}`)).body.status).toBe('approved');
          expect(w.foreign).toEqual([]);
          expect(refusalsAside(w.problems)).toEqual([]);
        } finally {
          await w.close();
        }
      },
    );

    it(
      'Configurações with the keyboard: each answer opens at its section and takes focus',
      { timeout: BROWSER_TEST_MS },
      async () => {
        const w = await phonePage(browser(), api);
        try {
          const { page } = w;
          await page
            .context()
            .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.baseUrl });
          await dashboardBrowserLogin(page, api.baseUrl, owner);
          await page.goto(`${api.baseUrl}/dashboard/configuracoes`);
          const sound = async (state: string) => {
            expect(await axeViolations(page), state).toEqual([]);
            expect(await phoneFit(page), state).toEqual({ width: 360, offscreen: [] });
          };

          // The invite link, shown once: at Equipe, focused, with its copy button.
          await page.getByLabel('E-mail', { exact: true }).fill(`convidada-${api.dialect}@loja.example`);
          await enterOn(page, page.getByLabel('E-mail', { exact: true }), /\/equipe\/convidar#equipe$/);
          expect(await focused(page)).toMatchObject({ answer: true, section: 'equipe', onScreen: true });
          expect((await focused(page)).text).toContain('Convite enviado');
          const link = await page.getByLabel('Link do convite').inputValue();
          await page.getByRole('button', { name: 'Copiar', exact: true }).click();
          await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(link);
          await sound('invite');

          // The last owner cannot step down: the refusal, at Equipe.
          await page.getByLabel(`Papel de ${LONG_EMAIL}`, { exact: true }).selectOption('viewer');
          await enterOn(
            page,
            page.getByRole('button', { name: `Alterar papel de ${LONG_EMAIL}` }),
            /\/equipe\/papel#equipe$/,
          );
          expect(await focused(page)).toMatchObject({
            answer: true,
            role: 'alert',
            section: 'equipe',
            text: 'A loja precisa de pelo menos um proprietário.',
            onScreen: true,
          });

          // Two-step verification: the QR, a wrong code, then the right one; each at Minha conta.
          await enterOn(
            page,
            page.getByRole('button', { name: 'Ativar verificação em duas etapas' }),
            /configurar#minha-conta$/,
          );
          expect(await focused(page)).toMatchObject({ answer: true, section: 'minha-conta', onScreen: true });
          await sound('2FA setup');
          const secret = (await page.locator('code.secret').first().textContent())!;
          await page.getByLabel('Sua senha', { exact: true }).fill(owner.password);
          await page.getByLabel('Código', { exact: true }).fill('000000');
          await enterOn(page, page.getByLabel('Código', { exact: true }), /ativar#minha-conta$/);
          expect(await focused(page)).toMatchObject({
            answer: true,
            role: 'alert',
            section: 'minha-conta',
            text: 'Código incorreto. Tente de novo.',
            onScreen: true,
          });
          await page.getByLabel('Sua senha', { exact: true }).fill(owner.password);
          await page.getByLabel('Código', { exact: true }).fill(totpCode(secret, totpStep()));
          await enterOn(
            page,
            page.getByLabel('Código', { exact: true }),
            /aviso=duas-etapas-ativada#minha-conta$/,
          );
          expect(await focused(page)).toMatchObject({
            answer: true,
            section: 'minha-conta',
            text: 'Verificação em duas etapas ativada.',
            onScreen: true,
          });
          await sound('2FA on');
          const ids = await page.evaluate(() =>
            [...document.querySelectorAll('[id]')].map((element) => element.id),
          );
          expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
          expect(w.foreign).toEqual([]);
          expect(refusalsAside(w.problems)).toEqual([]);
        } finally {
          await w.close();
        }
      },
    );
  });
});
