import { beforeAll, expect, it } from 'vitest';
import { paidSale } from '../dashboard/vendas-support.js';
import { axeViolations, describeInChromium } from '../support/chromium.js';
import { addDashboardUser, dashboardBrowserLogin } from '../support/dashboard.js';
import type { DashboardUser } from '../support/dashboard.js';
import { phoneFit, phonePage } from '../support/dashboard-browser.js';
import { describeEachDatabase } from '../support/test-api.js';
import { cardSale, chargeBack } from './card-sale-support.js';

const BROWSER_TEST_MS = 300_000;
const LONG_NAME = 'Maria Aparecida Conceição Nascimento Albuquerque de Oliveira';

describeInChromium('card sales on a phone (360 × 740, isMobile)', (browser) => {
  describeEachDatabase('Vendas, a card sale and Início fit 360 px', (api) => {
    let owner: DashboardUser;
    let card: string;
    let disputed: string;

    beforeAll(async () => {
      const { key, storeId } = await api.createStore({ name: 'Loja de Cursos de Música da Maria Aparecida' });
      owner = await addDashboardUser(api, storeId, 'owner');
      await paidSale(api, key, 10, { name: LONG_NAME, email: 'maria@example.com' });
      const buyer = { name: LONG_NAME, email: 'maria@example.com', document: '529.982.247-25' };
      card = (await cardSale(api, key, { amount: 1234.56, installments: 12, customer: buyer })).saleId;
      disputed = (await cardSale(api, key, { amount: 99.9, installments: 2, customer: buyer })).saleId;
      await chargeBack(api, disputed);
    });

    it(
      'the method filter, the payment cells, the card payment and the split by method: no sideways scroll, axe clean',
      { timeout: BROWSER_TEST_MS },
      async () => {
        const w = await phonePage(browser(), api);
        try {
          const { page } = w;
          await dashboardBrowserLogin(page, api.baseUrl, owner);
          await page.goto(`${api.baseUrl}/dashboard/vendas`);
          await page.getByLabel('Pagamento').selectOption('card');
          await Promise.all([
            page.waitForURL(/metodo=card/),
            page.getByRole('button', { name: 'Filtrar' }).click(),
          ]);
          // Each row is a card: every cell names its column, the payment among them.
          const cells = page.locator('td[data-label="Pagamento"]');
          expect(await cells.allTextContents()).toEqual([
            'Cartão Visa •••• 4242, 2x',
            'Cartão Visa •••• 4242, 12x',
          ]);
          expect(await page.locator('td[data-label="Status"]').allTextContents()).toEqual([
            'Contestada',
            'Aprovada',
          ]);
          const fit = { width: 360, offscreen: [] };
          expect(await phoneFit(page)).toEqual(fit);
          expect(await axeViolations(page)).toEqual([]);

          for (const path of [`/dashboard/vendas/${card}`, `/dashboard/vendas/${disputed}`, '/dashboard']) {
            const response = await page.goto(`${api.baseUrl}${path}`);
            expect(response?.status(), path).toBe(200);
            expect({ path, fit: await phoneFit(page), axe: await axeViolations(page) }).toEqual({
              path,
              fit,
              axe: [],
            });
          }
          expect(w.foreign).toEqual([]);
          expect(w.problems).toEqual([]);
        } finally {
          await w.close();
        }
      },
    );
  });
});
