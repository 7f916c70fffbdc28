import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  chromiumAvailable,
  chromiumSuiteTitle,
  failWithoutRequiredChromium,
  launchChromium,
  saveScreenshot,
  watchPage,
} from '../support/chromium.js';
import type { PageWatch } from '../support/chromium.js';
import { addDashboardUser, dashboardBrowserLogin } from '../support/dashboard.js';
import type { DashboardUser } from '../support/dashboard.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';

let browser: Browser | undefined;
beforeAll(async () => {
  if (chromiumAvailable) browser = await launchChromium();
});
afterAll(() => browser?.close());

failWithoutRequiredChromium();

const HOSTILE = '<script>alert("x")</script>"';

/** The page as it is: axe-core clean, no sideways scroll at 360 px, nothing from elsewhere. */
async function expectSound(page: Page, watch: PageWatch, name: string) {
  expect(await axeViolations(page), name).toEqual([]);
  const overflow = await page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
  expect(overflow, name).toBe(0);
  expect(watch.foreign).toEqual([]);
  expect(watch.problems).toEqual([]);
}

describe.skipIf(!chromiumAvailable)(
  chromiumSuiteTitle('Desenvolvedores and PSP in headless Chromium'),
  () => {
    describeEachDatabase('developer pages', (api: TestApi) => {
      let owner: DashboardUser;
      beforeAll(async () => {
        const { storeId, key } = await api.createStore({ name: HOSTILE });
        owner = await addDashboardUser(api, storeId, 'owner');
        // A merchant string in the events log.
        await api.as(key).post('/checkouts', { name: HOSTILE });
      });

      it('creates a key shown once, then never again; every page axe clean at 360 px', async () => {
        const context = await browser!.newContext({ viewport: { width: 360, height: 800 }, locale: 'pt-BR' });
        try {
          const page = await context.newPage();
          const w = await watchPage(page, api.baseUrl);
          page.on('dialog', () => w.problems.push('a script ran'));
          await dashboardBrowserLogin(page, api.baseUrl, owner);
          await page
            .getByRole('navigation', { name: 'Painel' })
            .getByRole('link', { name: 'Desenvolvedores' })
            .click();
          await page.waitForURL(`${api.baseUrl}/dashboard/desenvolvedores`);
          await expectSound(page, w, 'Desenvolvedores');

          await page.getByLabel('Teste', { exact: true }).first().check();
          await page.getByLabel('todas', { exact: true }).check();
          await Promise.all([
            page.waitForURL(/chaves#chaves$/),
            page.getByRole('button', { name: 'Nova chave' }).click(),
          ]);
          const key = await page.getByLabel('Nova chave de API.').inputValue();
          expect(key).toMatch(/^sk_test_/);
          await expectSound(page, w, 'Nova chave');
          await saveScreenshot(page, `dashboard-desenvolvedores-${api.dialect}.png`);
          expect((await api.as(key).get('/checkouts')).status).toBe(200);

          await page.goto(`${api.baseUrl}/dashboard/desenvolvedores`);
          expect(await page.content()).not.toContain(key);
          expect(await page.getByRole('cell', { name: `${key.slice(0, 12)}…`, exact: true }).count()).toBe(1);

          // A webhook endpoint: its secret shown once on the page it lands on, gone on the next visit.
          await page.getByLabel('URL', { exact: true }).fill('https://hooks.example.com/storefront');
          await page.getByLabel('sale.approved', { exact: true }).check();
          await Promise.all([
            page.waitForURL(/webhooks#webhooks$/),
            page.getByRole('button', { name: 'Novo endpoint' }).click(),
          ]);
          const secret = await page.getByLabel('Segredo de assinatura.').inputValue();
          expect(secret).toMatch(/^whsec_/);
          await expectSound(page, w, 'endpoint');
          expect(await page.getByRole('button', { name: 'Enviar teste' }).count()).toBe(1);
          expect(await page.getByRole('button', { name: 'Rotacionar segredo' }).count()).toBe(1);
          await page.getByRole('link', { name: 'Voltar para Desenvolvedores' }).click();
          await page.getByRole('link', { name: 'https://hooks.example.com/storefront' }).click();
          await page.waitForURL(/webhooks\/[0-9a-f-]{36}$/);
          expect(await page.content()).not.toContain(secret);

          await page.goto(`${api.baseUrl}/dashboard/desenvolvedores/eventos`);
          await expectSound(page, w, 'eventos');
          expect(await page.locator('pre').first().textContent()).toContain(HOSTILE.replace(/"/g, '\\"'));

          await page.goto(`${api.baseUrl}/dashboard/configuracoes/psp`);
          await expectSound(page, w, 'PSP');
          expect(await page.getByRole('button', { name: 'Salvar configurações do PSP' }).count()).toBe(1);
          await saveScreenshot(page, `dashboard-psp-${api.dialect}.png`);
        } finally {
          await context.close();
        }
      });
    });
  },
);
