import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { auditRecords, withAuditRefused } from '../support/audit-records.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import { paidSale } from '../dashboard/vendas-support.js';
import { recurringProduct, subscribe } from '../subscriptions/subscription-helpers.js';

/** A page's HTML without the cards' column labels (`data-label`), to match table cells as they read. */
const unlabelled = (html: string) => html.replace(/ data-label="[^"]*"/g, '');

const BUYER = { name: 'Ana Souza', email: 'ana@example.com' };

describeEachDatabase('actions through an API key in the audit log', (api: TestApi) => {
  let storeId: string;
  let key: string;
  /** How the audit log names the key: its public prefix, never the secret. */
  let prefix: string;

  beforeAll(async () => {
    ({ storeId, key } = await api.createStore({ name: 'Loja Auditada' }));
    prefix = `${key.slice(0, 12)}…`;
  });

  /** The entries of `action`, each as `detail` after checking the key made it. */
  async function entriesOf(action: string): Promise<string[]> {
    const rows = (await auditRecords(api, storeId)).filter((row) => row.action === action);
    for (const row of rows) {
      expect(row).toMatchObject({ actor_kind: 'api_key', actor_label: prefix, user_id: null });
      expect(row.ip).toBe('127.0.0.1');
    }
    return rows.map((row) => row.detail);
  }

  describe('a refund', () => {
    it('is audited with the key prefix, and undone with its entry when the entry cannot be written', async () => {
      const sale = await paidSale(api, key, 12.5, BUYER);
      const refused = await withAuditRefused(api, () => api.as(key).post(`/sales/${sale}/refund`));
      expect(refused.status).toBe(500);
      expect((await api.as(key).get(`/sales/${sale}`)).body.status).toBe('approved');
      expect(await entriesOf('sale_refunded')).toEqual([]);

      expect((await api.as(key).post(`/sales/${sale}/refund`)).status).toBe(200);
      expect(await entriesOf('sale_refunded')).toEqual([`Venda ${sale} de R$ 12,50`]);
    });
  });

  describe('cancels', () => {
    it('a Pix charge cancel is audited in its transaction', async () => {
      const charge = (await api.as(key).post('/payments/pix', { amount: 7, customer: BUYER })).body;
      const refused = await withAuditRefused(api, () =>
        api.as(key).post(`/payments/pix/${charge.id}/cancel`),
      );
      expect(refused.status).toBe(500);
      expect((await api.as(key).get(`/payments/pix/${charge.id}`)).body.status).toBe('pending');

      expect((await api.as(key).post(`/payments/pix/${charge.id}/cancel`)).status).toBe(200);
      expect(await entriesOf('pix_charge_canceled')).toEqual([`${charge.id} de R$ 7,00`]);
    });

    it('a subscription cancel is audited in its transaction', async () => {
      const product = await recurringProduct(api, key);
      const created = await subscribe(api, key, product.id);
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const refused = await withAuditRefused(api, () => api.as(key).post(`/subscriptions/${id}/cancel`));
      expect(refused.status).toBe(500);
      expect((await api.as(key).get(`/subscriptions/${id}`)).body.status).not.toBe('canceled');

      expect((await api.as(key).post(`/subscriptions/${id}/cancel`)).status).toBe(200);
      expect(await entriesOf('subscription_canceled')).toEqual([`${id} (Ana Souza)`]);
    });
  });

  describe('webhook endpoints', () => {
    it('create, change, rotate, test and delete are each audited with the key', async () => {
      const as = api.as(key);
      const created = await as.post('/webhooks', {
        url: 'https://audit.example.com/in',
        events: ['pix.paid'],
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      expect((await as.patch(`/webhooks/${id}`, { description: 'ERP', status: 'paused' })).status).toBe(200);
      expect((await as.patch(`/webhooks/${id}`, { status: 'active' })).status).toBe(200);
      expect((await as.post(`/webhooks/${id}/rotate_secret`, {})).status).toBe(200);
      expect((await as.post(`/webhooks/${id}/test`)).status).toBe(202);
      expect((await as.delete(`/webhooks/${id}`)).status).toBe(200);

      const rows = (await auditRecords(api, storeId, 'webhook_')).map(
        (row) => `${row.action}: ${row.detail}`,
      );
      expect(rows).toEqual([
        'webhook_created: https://audit.example.com/in (pix.paid)',
        'webhook_updated: https://audit.example.com/in: descrição, situação',
        'webhook_updated: https://audit.example.com/in: situação',
        'webhook_secret_rotated: https://audit.example.com/in',
        'webhook_tested: https://audit.example.com/in',
        'webhook_deleted: https://audit.example.com/in',
      ]);
      for (const action of ['webhook_created', 'webhook_updated', 'webhook_deleted']) await entriesOf(action);
      // Never the endpoint's secret, never the key's.
      const all = JSON.stringify(await auditRecords(api, storeId));
      expect(all).not.toContain('whsec_');
      expect(all).not.toContain(key);
    });

    it('a change whose entry cannot be written is not made', async () => {
      const as = api.as(key);
      const created = await as.post('/webhooks', {
        url: 'https://undo.example.com/in',
        events: ['pix.paid'],
      });
      const id = created.body.id as string;
      const refused = await withAuditRefused(api, () => as.patch(`/webhooks/${id}`, { description: 'não' }));
      expect(refused.status).toBe(500);
      expect((await as.get(`/webhooks/${id}`)).body.description).toBeNull();
      const deleted = await withAuditRefused(api, () => as.delete(`/webhooks/${id}`));
      expect(deleted.status).toBe(500);
      expect((await as.get(`/webhooks/${id}`)).status).toBe(200);
    });
  });

  describe('PATCH /store', () => {
    it('is audited in Portuguese words, in its transaction', async () => {
      const as = api.as(key);
      const refused = await withAuditRefused(api, () => as.patch('/store', { name: 'Nunca' }));
      expect(refused.status).toBe(500);
      expect((await as.get('/store')).body.name).toBe('Loja Auditada');

      const patched = await as.patch('/store', { name: 'Loja Nova', timezone: 'America/Manaus' });
      expect(patched.status).toBe(200);
      expect(await entriesOf('store_updated')).toEqual([
        'nome: Loja Auditada → Loja Nova; fuso horário: America/Sao_Paulo → America/Manaus',
      ]);
      // Nothing changed, nothing to record.
      expect((await as.patch('/store', { name: 'Loja Nova' })).status).toBe(200);
      expect(await entriesOf('store_updated')).toHaveLength(1);
    });
  });

  it('the owners read the key as "Chave sk_test_…" in the dashboard, never the raw actor kind', async () => {
    const owner = await addDashboardUser(api, storeId, 'owner');
    const session = await dashboardLogin(api.baseUrl, owner);
    const page = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/configuracoes');
    expect(page.status).toBe(200);
    expect(unlabelled(page.text)).toContain(`<td>Chave <code>${prefix}</code></td>`);
    expect(unlabelled(page.text)).toContain(`<td>${owner.email}</td>`);
    expect(page.text).not.toContain('api_key');
    expect(page.text).not.toContain(key);
  });
});
