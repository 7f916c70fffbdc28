import { beforeAll, expect, it } from 'vitest';
import { axeViolations, describeInChromium, saveScreenshot } from '../support/chromium.js';
import { addDashboardUser, dashboardBrowserLogin } from '../support/dashboard.js';
import type { DashboardUser } from '../support/dashboard.js';
import { horizontalOverflow, watchedPage } from '../support/dashboard-browser.js';
import { describeEachDatabase } from '../support/test-api.js';
import { paidSale } from './vendas-support.js';

const HOSTILE = '<script>alert("x")</script> Zé';

describeInChromium('Vendas in headless Chromium', (browser) => {
  describeEachDatabase('Vendas pages', (api) => {
    let owner: DashboardUser;
    let key: string;
    let withDialog: string;
    let withoutScript: string;

    beforeAll(async () => {
      const store = await api.createStore({ name: 'Loja Navegador Vendas' });
      key = store.key;
      owner = await addDashboardUser(api, store.storeId, 'owner');
      await paidSale(api, key, 45.9, { name: HOSTILE, email: 'hostil@example.com' });
      withoutScript = await paidSale(api, key, 12, { name: 'Sem Script', email: 'sem@example.com' });
      withDialog = await paidSale(api, key, 99.9, {
        name: 'Beatriz Nascimento Albuquerque de Oliveira',
        email: 'beatriz.nascimento.albuquerque@example.com',
        document: '529.982.247-25',
      });
    });

    it('Vendas and a sale: axe clean at 360 px; filters; refund through the dialog is the API refund', async () => {
      const w = await watchedPage(browser(), api);
      try {
        const { page } = w;
        await dashboardBrowserLogin(page, api.baseUrl, owner);
        await page.goto(`${api.baseUrl}/dashboard/vendas`);
        // The hostile name is text on the page, never markup.
        expect(await page.getByRole('cell', { name: HOSTILE }).count()).toBe(1);
        expect(await page.getByRole('link', { name: 'Exportar CSV' }).count()).toBe(1);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        await saveScreenshot(page, `dashboard-vendas-${api.dialect}.png`);

        await page.getByLabel('Buscar').fill('52998224725');
        await page.getByLabel('Status').selectOption('approved');
        await Promise.all([
          page.waitForURL(/q=52998224725/),
          page.getByRole('button', { name: 'Filtrar' }).click(),
        ]);
        expect(await page.getByRole('row').count()).toBe(2); // the header and Beatriz
        expect(await page.getByRole('link', { name: 'Exportar CSV' }).getAttribute('href')).toBe(
          '/dashboard/vendas.csv?status=approved&q=52998224725',
        );

        await Promise.all([
          page.waitForURL(`${api.baseUrl}/dashboard/vendas/${withDialog}`),
          page.locator(`a[href="/dashboard/vendas/${withDialog}"]`).click(),
        ]);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        await saveScreenshot(page, `dashboard-venda-${api.dialect}.png`);

        await page.getByRole('button', { name: 'Reembolsar' }).click();
        const dialog = page.getByRole('dialog', { name: 'Reembolsar esta venda?' });
        await expect.poll(() => dialog.isVisible()).toBe(true);
        expect(await axeViolations(page)).toEqual([]);
        // "Cancelar" closes it and nothing happens.
        await dialog.getByRole('button', { name: 'Cancelar' }).click();
        await expect.poll(() => dialog.isVisible()).toBe(false);
        expect((await api.as(key).get(`/sales/${withDialog}`)).body.status).toBe('approved');

        await page.getByRole('button', { name: 'Reembolsar' }).click();
        await Promise.all([
          page.waitForURL(/feito=reembolso/),
          dialog.getByRole('button', { name: 'Confirmar reembolso' }).click(),
        ]);
        expect(await page.getByRole('status').textContent()).toContain('Venda reembolsada.');
        expect((await api.as(key).get(`/sales/${withDialog}`)).body.status).toBe('refunded');
        expect(w.foreign).toEqual([]);
        expect(w.problems).toEqual([]);
      } finally {
        await w.close();
      }
    });

    it('without JavaScript, "Reembolsar" opens a confirm page that refunds', async () => {
      const w = await watchedPage(browser(), api, 360, { javaScriptEnabled: false });
      try {
        const { page } = w;
        await dashboardBrowserLogin(page, api.baseUrl, owner);
        await page.goto(`${api.baseUrl}/dashboard/vendas/${withoutScript}`);
        await Promise.all([
          // A GET form without fields ends the URL with `?`.
          page.waitForURL(`${api.baseUrl}/dashboard/vendas/${withoutScript}/reembolso?`),
          page.getByRole('button', { name: 'Reembolsar' }).click(),
        ]);
        expect(await horizontalOverflow(page)).toBe(0);
        await Promise.all([
          page.waitForURL(/feito=reembolso/),
          page.getByRole('button', { name: 'Confirmar reembolso' }).click(),
        ]);
        expect((await api.as(key).get(`/sales/${withoutScript}`)).body.status).toBe('refunded');
        const events = await api.as(key).get('/events?type=sale.refunded&limit=100');
        expect(events.body.data.some((e: any) => e.data.object.id === withoutScript)).toBe(true);
      } finally {
        await w.close();
      }
    });
  });
});
