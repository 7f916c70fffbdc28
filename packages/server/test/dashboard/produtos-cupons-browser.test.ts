import { beforeAll, expect, it } from 'vitest';
import { axeViolations, describeInChromium, saveScreenshot } from '../support/chromium.js';
import { addDashboardUser, dashboardBrowserLogin } from '../support/dashboard.js';
import type { DashboardUser } from '../support/dashboard.js';
import { horizontalOverflow, tabStops, watchedPage } from '../support/dashboard-browser.js';
import { describeEachDatabase } from '../support/test-api.js';

/**
 * Produtos and Cupons in Chromium: created with the keyboard alone, axe-core clean (no serious or
 * critical violation), no horizontal scroll at 360 px, nothing from another origin.
 */

const LONG_NAME = 'Curso completo de violão popular brasileiro para iniciantes e intermediários';

describeInChromium('Produtos and Cupons in headless Chromium', (browser) => {
  describeEachDatabase('Produtos and Cupons pages', (api) => {
    let editor: DashboardUser;
    let key: string;
    let storeId: string;

    beforeAll(async () => {
      ({ key, storeId } = await api.createStore({ name: 'Loja Navegador Catálogo' }));
      editor = await addDashboardUser(api, storeId, 'editor');
      await api.as(key).post('/products', { nome: '<b>Bônus</b>', preco: 9.9 });
    });

    it('creates a product and a coupon with the keyboard; axe clean and no horizontal scroll at 360 px', async () => {
      const w = await watchedPage(browser(), api);
      try {
        const { page } = w;
        await dashboardBrowserLogin(page, api.baseUrl, editor);
        await page.goto(`${api.baseUrl}/dashboard/produtos`);
        expect(await page.getByRole('cell', { name: '<b>Bônus</b>' }).count()).toBe(1);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        expect(await tabStops(page)).toContain('Novo produto');

        // "Novo produto" by the keyboard, then the form: type, Tab, type, Enter.
        await page.getByRole('link', { name: 'Novo produto' }).focus();
        await Promise.all([page.waitForURL(/\/produtos\/novo$/), page.keyboard.press('Enter')]);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        await saveScreenshot(page, `dashboard-produto-novo-${api.dialect}.png`);
        const stops = await tabStops(page, 120);
        for (const name of [
          'Nome',
          'Preço',
          'Descrição',
          'Imagem',
          'Link de acesso',
          'Garantia',
          'Checkout',
        ]) {
          expect(stops, name).toContain(name);
        }
        for (const name of [
          'Oferecer order bump',
          'Assunto do e-mail',
          'Texto do e-mail',
          'Recorrência',
          'Salvar',
        ]) {
          expect(
            stops.some((stop) => stop.includes(name)),
            name,
          ).toBe(true);
        }

        await page.getByLabel('Nome', { exact: true }).focus();
        await page.keyboard.type(LONG_NAME);
        await page.keyboard.press('Tab');
        await page.keyboard.type('1.000.000,01'); // over the limit: refused by the field
        await Promise.all([page.waitForLoadState('load'), page.keyboard.press('Enter')]);
        await expect.poll(() => page.getByRole('alert').first().textContent()).toContain('Nada foi salvo');
        expect(await page.getByLabel('Preço').getAttribute('aria-invalid')).toBe('true');
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);

        await page.getByLabel('Preço').fill('');
        await page.getByLabel('Preço').focus();
        await page.keyboard.type('197,00');
        await page.getByLabel('Recorrência').focus();
        await page.keyboard.press('ArrowDown'); // Semanal → the next option down is chosen
        await page.getByLabel('Preço').focus();
        await Promise.all([page.waitForURL(/aviso=criado/), page.keyboard.press('Enter')]);
        const id = /produtos\/([0-9a-f-]{36})/.exec(page.url())![1]!;
        const product = (await api.as(key).get(`/products/${id}`)).body;
        expect(product).toMatchObject({ nome: LONG_NAME, preco: 197, ativo: true });
        expect(product.recorrencia).not.toBeNull();
        expect(await page.getByRole('status').first().textContent()).toContain('Produto criado.');
        expect(await page.getByRole('link', { name: new RegExp(`/p/.+/${product.slug}$`) }).count()).toBe(1);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        await saveScreenshot(page, `dashboard-produto-${api.dialect}.png`);

        // Cupons: "Novo cupom", then Código, Desconto (%), Enter.
        await page.goto(`${api.baseUrl}/dashboard/cupons`);
        expect(await axeViolations(page)).toEqual([]);
        await page.getByRole('link', { name: 'Novo cupom' }).focus();
        await Promise.all([page.waitForURL(/\/cupons\/novo$/), page.keyboard.press('Enter')]);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        for (const name of [
          'Código',
          'Desconto (%)',
          'Desconto (R$)',
          'Limite de usos',
          'Validade',
          'Produtos',
        ]) {
          expect(await page.getByLabel(name, { exact: true }).count(), name).toBe(1);
        }
        await page.getByLabel('Código').focus();
        await page.keyboard.type('navegador15');
        await page.keyboard.press('Tab');
        await page.keyboard.type('15');
        await page.getByLabel('Produtos').focus();
        await page.keyboard.type(product.codigo);
        await page.getByRole('button', { name: 'Salvar' }).focus();
        await Promise.all([page.waitForURL(/aviso=criado/), page.keyboard.press('Enter')]);
        const couponId = /cupons\/(cpn_[0-9A-Za-z]+)/.exec(page.url())![1]!;
        expect((await api.as(key).get(`/coupons/${couponId}`)).body).toMatchObject({
          code: 'NAVEGADOR15',
          percent_off: 15,
          product_ids: [id],
        });
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        await saveScreenshot(page, `dashboard-cupom-${api.dialect}.png`);

        await page.goto(`${api.baseUrl}/dashboard/cupons`);
        expect(await page.getByRole('link', { name: 'NAVEGADOR15' }).count()).toBe(1);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);

        expect(w.foreign).toEqual([]);
        // The refused form answers 400, which Chromium reports on its console; nothing else.
        expect(w.problems.filter((problem) => !problem.includes('status of 400'))).toEqual([]);
      } finally {
        await w.close();
      }
    });
  });
});
