import { beforeAll, expect, it } from 'vitest';
import { totpCode, totpStep } from '../../src/domain/accounts/totp.js';
import { axeViolations, describeInChromium, saveScreenshot } from '../support/chromium.js';
import { addDashboardUser, dashboardBrowserLogin } from '../support/dashboard.js';
import type { DashboardUser } from '../support/dashboard.js';
import { horizontalOverflow, tabStops, watchedPage } from '../support/dashboard-browser.js';
import { describeEachDatabase } from '../support/test-api.js';

/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core): axe-core, 360 px,
 * the keyboard alone, nothing from another origin. Screenshots go to packages/server/test-artifacts/.
 */

describeInChromium('dashboard in headless Chromium', (browser) => {
  describeEachDatabase('dashboard pages', (api) => {
    let owner: DashboardUser;
    let storeId: string;
    beforeAll(async () => {
      ({ storeId } = await api.createStore({ name: 'Loja do Navegador' }));
      owner = await addDashboardUser(api, storeId, 'owner');
      // A sale, so Início has a bar and a row.
      const { key } = await api.createStore({ name: 'descartável' });
      void key;
      const storeKey = await api.createKey(storeId);
      const charge = (
        await api.as(storeKey).post('/payments/pix', {
          amount: 120.5,
          customer: { name: 'Joana Prado', email: 'joana@example.com' },
        })
      ).body;
      await api.as(storeKey).post(`/payments/pix/${charge.id}/simulate_payment`);
    });

    it('login: a wrong pair shows the message; axe clean, 360 px, nothing from elsewhere', async () => {
      const w = await watchedPage(browser(), api);
      try {
        await w.page.goto(`${api.baseUrl}/dashboard/login`);
        expect(await axeViolations(w.page)).toEqual([]);
        expect(await horizontalOverflow(w.page)).toBe(0);
        await w.page.getByLabel('E-mail').fill(owner.email);
        await w.page.getByLabel('Senha').fill('errada-errada');
        await w.page.getByRole('button', { name: 'Entrar' }).click();
        await expect
          .poll(() => w.page.getByRole('alert').textContent())
          .toContain('E-mail ou senha incorretos.');
        expect(await axeViolations(w.page)).toEqual([]);
        await saveScreenshot(w.page, `dashboard-login-${api.dialect}.png`);
        expect(w.foreign).toEqual([]);
        // The refused login answers 401, which Chromium reports on its console; nothing else.
        expect(w.problems).toEqual([
          'console: Failed to load resource: the server responded with a status of 401 (Unauthorized)',
        ]);
      } finally {
        await w.close();
      }
    });

    it('Início and Configurações: keyboard only from login to every action, axe clean, no horizontal scroll', async () => {
      const w = await watchedPage(browser(), api);
      try {
        const { page } = w;
        await page.goto(`${api.baseUrl}/dashboard/login`);
        // The keyboard alone: Tab to each field, type, Enter.
        await page.keyboard.press('Tab');
        await page.keyboard.type(owner.email);
        await page.keyboard.press('Tab');
        await page.keyboard.type(owner.password);
        await Promise.all([page.waitForURL(`${api.baseUrl}/dashboard`), page.keyboard.press('Enter')]);

        const nav = page.getByRole('navigation', { name: 'Painel' });
        for (const name of [
          'Início',
          'Vendas',
          'Pedidos',
          'Assinaturas',
          'Produtos',
          'Checkouts',
          'Cupons',
          'Desenvolvedores',
          'Configurações',
        ]) {
          await expect.poll(() => nav.getByRole('link', { name, exact: true }).count()).toBe(1);
        }
        expect(await page.getByRole('button', { name: 'Sair' }).count()).toBe(1);
        expect(await page.getByRole('img', { name: 'Receita líquida por dia' }).count()).toBe(1);
        expect(await page.getByRole('cell', { name: 'Joana Prado' }).count()).toBe(1);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        await saveScreenshot(page, `dashboard-inicio-${api.dialect}.png`);
        const homeStops = await tabStops(page);
        for (const name of [
          'Pular para o conteúdo',
          'Sair',
          'Início',
          'Configurações',
          'Período',
          'Ver',
          'Ver os valores em tabela',
        ]) {
          expect(homeStops, name).toContain(name);
        }
        // The period select works without script: choose, submit.
        await page.getByLabel('Período').selectOption('7');
        await Promise.all([page.waitForURL(/periodo=7/), page.getByRole('button', { name: 'Ver' }).click()]);
        expect(await page.getByRole('heading', { name: 'Últimos 7 dias' }).count()).toBe(1);

        await page.goto(`${api.baseUrl}/dashboard/configuracoes`);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        await saveScreenshot(page, `dashboard-configuracoes-${api.dialect}.png`);
        const stops = await tabStops(page, 120);
        for (const name of [
          'Nome da loja',
          'Salvar loja',
          'Chave Pix',
          'Salvar chave Pix',
          'Salvar modo',
          'Enviar o e-mail de pedido abandonado',
          'Texto',
          'Salvar e-mail de pedido abandonado',
          'Convidar',
          'Senha atual',
          'Alterar senha',
          'Ativar verificação em duas etapas',
        ]) {
          expect(stops, name).toContain(name);
        }
        // Invite from the page: the link is shown to copy.
        // Exact: "E-mail de pedido abandonado" is a section of the page too.
        await page.getByLabel('E-mail', { exact: true }).fill(`equipe-${api.dialect}@loja.example`);
        await page.getByLabel('Papel', { exact: true }).selectOption('editor');
        await page.getByRole('button', { name: 'Convidar' }).click();
        await expect
          .poll(() => page.getByLabel('Link do convite').inputValue())
          .toMatch(/\/dashboard\/convite\//);
        expect(await axeViolations(page)).toEqual([]);

        // Two-step verification: the QR (a data: image) and the key, then "Ativar".
        await page.getByRole('button', { name: 'Ativar verificação em duas etapas' }).click();
        await expect.poll(() => page.getByRole('img', { name: /Código QR/ }).count()).toBe(1);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        const secret = (await page.locator('code.secret').first().textContent())!;
        await page.getByLabel('Código', { exact: true }).fill(totpCode(secret, totpStep()));
        // Turning it on asks for the password too.
        await page.getByLabel('Sua senha').fill(owner.password);
        await page.getByRole('button', { name: 'Ativar', exact: true }).click();
        await expect
          .poll(() => page.getByRole('status').first().textContent())
          .toContain('Verificação em duas etapas ativada.');

        // Sair, then the login asks for the code.
        await Promise.all([
          page.waitForURL(/\/dashboard\/login$/),
          page.getByRole('button', { name: 'Sair' }).click(),
        ]);
        await page.getByLabel('E-mail').fill(owner.email);
        await page.getByLabel('Senha').fill(owner.password);
        await Promise.all([
          page.waitForURL(/verificar$/),
          page.getByRole('button', { name: 'Entrar' }).click(),
        ]);
        expect(await axeViolations(page)).toEqual([]);
        const row = await api.db
          .selectFrom('users')
          .select('totp_last_step')
          .where('id', '=', owner.id)
          .executeTakeFirstOrThrow();
        await page.getByLabel('Código', { exact: true }).fill(totpCode(secret, row.totp_last_step! + 1));
        await Promise.all([
          page.waitForURL(`${api.baseUrl}/dashboard`),
          page.getByRole('button', { name: 'Verificar' }).click(),
        ]);
        expect(w.foreign).toEqual([]);
        expect(w.problems).toEqual([]);
      } finally {
        await w.close();
      }
    });

    it('the invite page in a browser sets a password and lands on Início', async () => {
      const { addMember } = await import('../../src/domain/accounts/team.js');
      const added = await addMember(api.db, {
        storeId,
        email: `browser-${api.dialect}@loja.example`,
        role: 'viewer',
        invite: true,
      });
      const w = await watchedPage(browser(), api);
      try {
        await w.page.goto(`${api.baseUrl}/dashboard/convite/${added.inviteToken!}`);
        expect(await axeViolations(w.page)).toEqual([]);
        expect(await horizontalOverflow(w.page)).toBe(0);
        await w.page.getByLabel('Nova senha', { exact: true }).fill('senha-do-navegador');
        await w.page.getByLabel('Confirme a nova senha').fill('senha-do-navegador');
        await Promise.all([
          w.page.waitForURL(`${api.baseUrl}/dashboard`),
          w.page.getByRole('button', { name: 'Criar senha e entrar' }).click(),
        ]);
        expect(await w.page.getByRole('heading', { name: 'Início' }).count()).toBe(1);
        // A viewer sees no owner section on Configurações.
        await w.page.goto(`${api.baseUrl}/dashboard/configuracoes`);
        expect(await w.page.getByRole('button', { name: 'Convidar' }).count()).toBe(0);
        expect(await axeViolations(w.page)).toEqual([]);
        expect(w.foreign).toEqual([]);
      } finally {
        await w.close();
      }
    });

    it('signs in with the test-support helper', async () => {
      const w = await watchedPage(browser(), api, 1280);
      try {
        const second = await addDashboardUser(api, storeId, 'owner');
        await dashboardBrowserLogin(w.page, api.baseUrl, second);
        expect(await w.page.getByRole('navigation', { name: 'Painel' }).count()).toBe(1);
        expect(await axeViolations(w.page)).toEqual([]);
        // Wide: the navigation is a column beside the page.
        await w.page.goto(`${api.baseUrl}/dashboard/configuracoes`);
        expect(await axeViolations(w.page)).toEqual([]);
        expect(await horizontalOverflow(w.page)).toBe(0);
        await saveScreenshot(w.page, `dashboard-configuracoes-1280-${api.dialect}.png`);
      } finally {
        await w.close();
      }
    });
  });
});
