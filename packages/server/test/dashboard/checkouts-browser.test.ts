import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { axeViolations, describeInChromium, saveScreenshot } from '../support/chromium.js';
import { addDashboardUser, dashboardBrowserLogin } from '../support/dashboard.js';
import type { DashboardUser } from '../support/dashboard.js';
import { horizontalOverflow, tabStops, watchedPage } from '../support/dashboard-browser.js';
import type { Watched } from '../support/dashboard-browser.js';
import { describeEachDatabase } from '../support/test-api.js';

const HOSTILE = '<script>alert("x")</script> Natal';

/** The purchase page's title as the preview frame now shows it. */
const previewTitle = (page: Page) =>
  page
    .frameLocator('iframe.preview-frame:not(.preview-loading)')
    .getByRole('heading', { level: 1 })
    .textContent();

/** The page as it is: axe clean, no sideways scroll at 360 px, nothing from elsewhere, no script error. */
async function expectSound(w: Watched, name: string) {
  expect(await axeViolations(w.page), name).toEqual([]);
  expect(await horizontalOverflow(w.page), name).toBe(0);
  expect(w.foreign, name).toEqual([]);
  expect(w.problems, name).toEqual([]);
}

describeInChromium('Checkouts in headless Chromium', (browser) => {
  describeEachDatabase('Checkouts pages', (api) => {
    let editor: DashboardUser;
    let key: string;
    let checkoutId: string;
    const savedTitle = async () =>
      (await api.as(key).get(`/checkouts/${checkoutId}`)).body.settings_json.checkout_titulo;

    beforeAll(async () => {
      const store = await api.createStore({ name: 'Loja Navegador Checkouts' });
      key = store.key;
      editor = await addDashboardUser(api, store.storeId, 'editor');
      checkoutId = (
        await api.as(key).post('/checkouts', { name: HOSTILE, settings_json: { checkout_titulo: 'Antes' } })
      ).body.id;
    });

    it('the preview shows an unsaved title; Salvar saves it; axe clean, 360 px, keyboard, same origin', async () => {
      const w = await watchedPage(browser(), api);
      try {
        const { page } = w;
        page.on('dialog', () => w.problems.push('a script ran'));
        await dashboardBrowserLogin(page, api.baseUrl, editor);
        await page
          .getByRole('navigation', { name: 'Painel' })
          .getByRole('link', { name: 'Checkouts' })
          .click();
        await page.waitForURL(`${api.baseUrl}/dashboard/checkouts`);
        // The hostile name is a link's text, never markup.
        expect(await page.getByRole('link', { name: HOSTILE }).count()).toBe(1);
        await expectSound(w, 'Checkouts');
        await saveScreenshot(page, `dashboard-checkouts-${api.dialect}.png`);

        await page.getByRole('link', { name: HOSTILE }).click();
        await page.waitForURL(`${api.baseUrl}/dashboard/checkouts/${checkoutId}`);
        await expect.poll(() => previewTitle(page)).toBe('Antes');
        const entries = await page.evaluate(() => window.history.length);

        await page.getByLabel('Título', { exact: true }).fill('');
        await page
          .getByLabel('Título', { exact: true })
          .pressSequentially('Promoção de Natal', { delay: 20 });
        await expect.poll(() => previewTitle(page), { timeout: 10_000 }).toBe('Promoção de Natal');
        // Not saved, and the redraws left no trail in the browser's history.
        expect(await savedTitle()).toBe('Antes');
        expect(await page.evaluate(() => window.history.length)).toBe(entries);
        await page.getByLabel('Cor de fundo').fill('#336699');
        await expect
          .poll(() =>
            page
              .frameLocator('iframe.preview-frame:not(.preview-loading)')
              .locator('body')
              .evaluate((body) => getComputedStyle(body).backgroundColor),
          )
          .toBe('rgb(51, 102, 153)');
        expect(await page.locator('iframe.preview-frame').count()).toBe(1);
        await expectSound(w, 'editor');
        await saveScreenshot(page, `dashboard-checkout-editor-${api.dialect}.png`);

        // The keyboard reaches Salvar (after every field of the form).
        const stops = await tabStops(page, 120);
        expect(stops).toContain('Salvar');
        expect(stops.indexOf('Salvar')).toBeGreaterThan(stops.indexOf('Mostrar campo de cupom'));
        await page.getByRole('button', { name: 'Salvar' }).focus();
        await Promise.all([page.waitForURL(/aviso=salvo$/), page.keyboard.press('Enter')]);
        expect(await savedTitle()).toBe('Promoção de Natal');
        await expect.poll(() => previewTitle(page)).toBe('Promoção de Natal');
        await expectSound(w, 'saved');
      } finally {
        await w.close();
      }
    });

    it('a new checkout: wide screen side by side, a wrong colour named at its field, then created', async () => {
      const w = await watchedPage(browser(), api, 1280);
      try {
        const { page } = w;
        await dashboardBrowserLogin(page, api.baseUrl, editor);
        await page.goto(`${api.baseUrl}/dashboard/checkouts`);
        await Promise.all([
          page.waitForURL(/\/novo$/),
          page.getByRole('link', { name: 'Novo checkout' }).click(),
        ]);
        await expect.poll(() => previewTitle(page)).toBe('Finalize sua compra');
        await page.getByLabel('Nome', { exact: true }).fill('Black Friday');
        await page.getByLabel('Título', { exact: true }).fill('Só hoje');
        await page.getByLabel('Cor de fundo').fill('preto');
        await expect.poll(() => previewTitle(page), { timeout: 10_000 }).toBe('Só hoje');
        await Promise.all([
          page.waitForURL(/\/checkouts$/),
          page.getByRole('button', { name: 'Salvar' }).click(),
        ]);
        expect(await page.getByText('Use uma cor no formato #RGB ou #RRGGBB').count()).toBe(1);
        expect(await page.getByLabel('Cor de fundo').getAttribute('aria-invalid')).toBe('true');
        expect(await page.getByLabel('Nome', { exact: true }).inputValue()).toBe('Black Friday');
        // The refused form answers 400, which Chromium reports on its console; nothing else.
        expect(w.problems.splice(0)).toEqual([
          'console: Failed to load resource: the server responded with a status of 400 (Bad Request)',
        ]);
        await expectSound(w, 'refused');
        await page.getByLabel('Cor de fundo').fill('#000');
        await Promise.all([
          page.waitForURL(/aviso=criado$/),
          page.getByRole('button', { name: 'Salvar' }).click(),
        ]);
        const id = /checkouts\/([0-9a-f-]{36})\?/.exec(page.url())![1]!;
        const created = (await api.as(key).get(`/checkouts/${id}`)).body;
        expect(created).toMatchObject({
          name: 'Black Friday',
          settings_json: { checkout_titulo: 'Só hoje' },
        });
        await expectSound(w, 'created');
        await saveScreenshot(page, `dashboard-checkout-wide-${api.dialect}.png`);
      } finally {
        await w.close();
      }
    });

    it('without JavaScript, Pré-visualizar draws the unsaved settings in the frame', async () => {
      const w = await watchedPage(browser(), api, 360, { javaScriptEnabled: false });
      try {
        const { page } = w;
        await dashboardBrowserLogin(page, api.baseUrl, editor);
        await page.goto(`${api.baseUrl}/dashboard/checkouts/${checkoutId}`);
        await page.getByLabel('Título', { exact: true }).fill('Sem script');
        await page.getByRole('button', { name: 'Pré-visualizar' }).click();
        await expect.poll(() => previewTitle(page)).toBe('Sem script');
        expect(await savedTitle()).not.toBe('Sem script');
        expect(w.foreign).toEqual([]);
      } finally {
        await w.close();
      }
    });
  });
});
