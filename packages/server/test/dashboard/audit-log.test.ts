import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSmtpServer } from '../support/smtp-server.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { auditRecords, withAuditRefused } from '../support/audit-records.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession, DashboardUser } from '../support/dashboard.js';
import { paidSale } from './vendas-support.js';

/** A page's HTML without the cards' column labels (`data-label`), to match table cells as they read. */
const unlabelled = (html: string) => html.replace(/ data-label="[^"]*"/g, '');

const smtp = await startSmtpServer();
afterAll(() => smtp.close());

const BUYER = { name: 'Bia Lima', email: 'bia@example.com' };

describeEachDatabase(
  'the dashboard audit log: in the change’s transaction, with the person who made it',
  (api: TestApi) => {
    let storeId: string;
    let key: string;
    let owner: DashboardUser;
    let session: DashboardSession;
    const post = (path: string) => dashboardRequest(api.baseUrl, session, 'POST', path, {});

    beforeAll(async () => {
      ({ storeId, key } = await api.createStore({ name: 'Loja do Painel' }));
      owner = await addDashboardUser(api, storeId, 'owner');
      session = await dashboardLogin(api.baseUrl, owner);
    });

    /** The entries of `action`, each as `detail` after checking the signed-in owner made it. */
    async function entriesOf(action: string): Promise<string[]> {
      const rows = (await auditRecords(api, storeId)).filter((row) => row.action === action);
      for (const row of rows)
        expect(row).toMatchObject({
          actor_kind: 'person',
          actor_label: null,
          user_id: owner.id,
          ip: '127.0.0.1',
        });
      return rows.map((row) => row.detail);
    }

    it('a refund whose entry cannot be written is not made; a refund and its entry commit together', async () => {
      const sale = await paidSale(api, key, 30, BUYER);
      const refused = await withAuditRefused(api, () => post(`/dashboard/vendas/${sale}/reembolso`));
      expect(refused.status).toBe(500);
      expect((await api.as(key).get(`/sales/${sale}`)).body.status).toBe('approved');
      expect(await entriesOf('sale_refunded')).toEqual([]);

      const done = await post(`/dashboard/vendas/${sale}/reembolso`);
      expect(done.status).toBe(303);
      expect((await api.as(key).get(`/sales/${sale}`)).body.status).toBe('refunded');
      expect(await entriesOf('sale_refunded')).toEqual([`Venda ${sale} de R$ 30,00`]);
    });

    it('"Reenviar e-mail" is audited with the queued e-mail', async () => {
      const sale = await paidSale(api, key, 15, BUYER);
      const refused = await withAuditRefused(api, () => post(`/dashboard/vendas/${sale}/reenviar-email`));
      expect(refused.status).toBe(500);
      expect(await entriesOf('delivery_email_resent')).toEqual([]);

      const done = await post(`/dashboard/vendas/${sale}/reenviar-email`);
      expect(done.status).toBe(303);
      expect(await entriesOf('delivery_email_resent')).toEqual([`Venda ${sale} para bia@example.com`]);
    });

    it('"Enviar teste" (a webhook test event) is audited', async () => {
      const endpoint = await api
        .as(key)
        .post('/webhooks', { url: 'https://painel.example.com/in', events: ['pix.paid'] });
      const path = `/dashboard/desenvolvedores/webhooks/${endpoint.body.id}/teste`;
      const refused = await withAuditRefused(api, () => post(path));
      expect(refused.status).toBe(500);
      const queued = () =>
        api.db
          .selectFrom('events')
          .select('id')
          .where('type', '=', 'webhook.test')
          .where('store_id', '=', storeId)
          .execute();
      expect(await queued()).toEqual([]);

      expect((await post(path)).status).toBe(303);
      expect(await queued()).toHaveLength(1);
      expect(await entriesOf('webhook_tested')).toEqual(['https://painel.example.com/in']);
    });

    it('creating an API key in the dashboard is audited in its transaction', async () => {
      const keys = () => api.db.selectFrom('api_keys').select('id').where('store_id', '=', storeId).execute();
      const before = (await keys()).length;
      const form = { mode: 'test', scopes: 'all' };
      const refused = await withAuditRefused(api, () =>
        dashboardRequest(api.baseUrl, session, 'POST', '/dashboard/desenvolvedores/chaves', form),
      );
      expect(refused.status).toBe(500);
      expect(await keys()).toHaveLength(before);
      const made = await dashboardRequest(
        api.baseUrl,
        session,
        'POST',
        '/dashboard/desenvolvedores/chaves',
        form,
      );
      expect(made.status).toBe(200);
      expect(await keys()).toHaveLength(before + 1);
      expect(await entriesOf('api_key_created')).toHaveLength(1);
    });

    it('archiving a product or a coupon is undone when its entry cannot be written', async () => {
      const product = (await api.as(key).post('/products', { nome: 'Ebook', preco: 10 })).body;
      const coupon = (await api.as(key).post('/coupons', { code: 'AUDITADO', percent_off: 10 })).body;
      const archive = () => [
        post(`/dashboard/produtos/${product.id}/arquivar`),
        post(`/dashboard/cupons/${coupon.id}/arquivar`),
      ];
      const refused = await withAuditRefused(api, async () => Promise.all(archive()));
      expect(refused.map((res) => res.status)).toEqual([500, 500]);
      expect((await api.as(key).get(`/products/${product.id}`)).body.ativo).toBe(true);
      expect((await api.as(key).get(`/coupons/${coupon.id}`)).body.active).toBe(true);

      expect((await Promise.all(archive())).map((res) => res.status)).toEqual([303, 303]);
      expect((await api.as(key).get(`/products/${product.id}`)).body.ativo).toBe(false);
      expect(await entriesOf('product_archived')).toEqual([`Ebook (${product.codigo})`]);
      expect(await entriesOf('coupon_archived')).toEqual(['AUDITADO']);
    });

    it("a person's own password change is undone when its entry cannot be written", async () => {
      const person = await addDashboardUser(api, storeId, 'viewer');
      const own = await dashboardLogin(api.baseUrl, person);
      const change = () =>
        dashboardRequest(api.baseUrl, own, 'POST', '/dashboard/configuracoes/conta/senha', {
          current: person.password,
          password: 'uma-senha-nova-e-longa',
          confirmation: 'uma-senha-nova-e-longa',
        });
      const hashOf = async () =>
        (
          await api.db
            .selectFrom('users')
            .select('password_hash')
            .where('id', '=', person.id)
            .executeTakeFirstOrThrow()
        ).password_hash;
      const before = await hashOf();
      expect((await withAuditRefused(api, change)).status).toBe(500);
      expect(await hashOf()).toBe(before);
      expect((await change()).status).toBe(303);
      expect(await hashOf()).not.toBe(before);
      const entries = (await auditRecords(api, storeId)).filter((row) => row.action === 'password_changed');
      expect(entries).toEqual([expect.objectContaining({ detail: person.email, user_id: person.id })]);
    });

    it('the audit page names the person who made each entry', async () => {
      const page = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/configuracoes');
      expect(unlabelled(page.text)).toContain(`<td>${owner.email}</td><td>E-mail de entrega reenviado</td>`);
      expect(unlabelled(page.text)).toContain('<td>Evento de teste enviado ao webhook</td>');
    });
  },
  { config: { smtp: smtp.settings('Loja <painel@loja.example>') }, mailerTls: { ca: smtp.ca } },
);
