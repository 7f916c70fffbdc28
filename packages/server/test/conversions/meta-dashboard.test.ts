import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConversionWorker } from '../../src/flows/send-meta-conversions.js';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { metaTokenAssociatedData } from '../../src/domain/stores/store-settings.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import type { HttpsReceiver } from '../support/https-receiver.js';
import { TEST_SECRET, describeEachDatabase } from '../support/test-api.js';
import { createShop, pageRequest, placeOrder } from '../pages/page-support.js';
import { orderIdOf } from '../orders/orders-support.js';
import { eventually } from '../webhooks/delivery-harness.js';
import {
  conversionCount,
  conversionRows,
  metaError,
  newPixelId,
  sentTo,
  startFakeGraph,
  startTestConversionWorker,
} from './meta-support.js';

const graph: HttpsReceiver = await startFakeGraph();
afterAll(() => graph.close());

const storeRow = (api: Parameters<Parameters<typeof describeEachDatabase>[1]>[0], id: string) =>
  api.db.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/**
 * Conversões Meta in the dashboard: owners set the pixel, the write-only token, the test code and the
 * browser pixel by PATCH /store's rules (editors and viewers get 403, a POST without the CSRF token
 * 403, and nothing changes); a sale's page shows what Meta answered to its events.
 */
describeEachDatabase('dashboard Conversões Meta', (api) => {
  let storeId: string;
  let key: string;
  let owner: DashboardSession;
  let editor: DashboardSession;
  const box = createSecretBox(TEST_SECRET);
  const form = (fields: Record<string, string> = {}) => ({
    pixel_id: '123456789012345',
    access_token: '',
    test_event_code: '',
    ...fields,
  });
  const post = (session: DashboardSession, path: string, fields: Record<string, string>, csrf = true) =>
    dashboardRequest(api.baseUrl, session, 'POST', `/dashboard/configuracoes${path}`, fields, { csrf });

  beforeAll(async () => {
    const shop = await createShop(api);
    ({ storeId, key } = shop);
    owner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'owner'));
    editor = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'editor'));
  });

  it('shows the section to owners only', async () => {
    const page = await dashboardRequest(api.baseUrl, owner, 'GET', '/dashboard/configuracoes');
    expect(page.text).toContain('Conversões Meta');
    expect(page.text).toContain('name="access_token"');
    const editorPage = await dashboardRequest(api.baseUrl, editor, 'GET', '/dashboard/configuracoes');
    expect(editorPage.status).toBe(200);
    expect(editorPage.text).not.toContain('name="access_token"');
  });

  it('refuses editors and posts without the CSRF token, changing nothing', async () => {
    const fields = form({ access_token: 'EAAB-editor' });
    expect((await post(editor, '/meta', fields)).status).toBe(403);
    expect((await post(owner, '/meta', fields, false)).status).toBe(403);
    expect((await post(editor, '/meta/remover', {})).status).toBe(403);
    expect((await storeRow(api, storeId)).meta_pixel_id).toBeNull();
  });

  it('applies PATCH /store rules: digits only, a token the first time', async () => {
    const bad = await post(owner, '/meta', form({ pixel_id: '12ab', access_token: 'EAAB-x' }));
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('O ID do pixel tem só números');
    expect(bad.text).toContain('value="12ab"');
    const noToken = await post(owner, '/meta', form());
    expect(noToken.status).toBe(400);
    expect(noToken.text).toContain('Na primeira vez ele é obrigatório');
    const spaced = await post(owner, '/meta', form({ access_token: 'EAAB with spaces' }));
    expect(spaced.status).toBe(400);
    // The token typed is never written back into the page.
    expect(spaced.text).not.toContain('EAAB with spaces');
    expect((await storeRow(api, storeId)).meta_pixel_id).toBeNull();
  });

  it('saves the settings as the API shows them; the token stays write-only and is kept when left blank', async () => {
    const saved = await post(
      owner,
      '/meta',
      form({ access_token: 'EAAB-first', test_event_code: 'TEST42', browser_pixel: 'on' }),
    );
    expect(saved.status, saved.text).toBe(303);
    expect(saved.headers.get('location')).toBe('/dashboard/configuracoes?aviso=meta#meta');
    const store = await api.as(key).get('/store');
    expect(store.body.conversions.meta).toEqual({
      pixel_id: '123456789012345',
      access_token_set: true,
      test_event_code: 'TEST42',
      browser_pixel: true,
    });
    const row = await storeRow(api, storeId);
    expect(box.open(row.meta_access_token_sealed!, metaTokenAssociatedData(storeId))).toBe('EAAB-first');
    const page = await dashboardRequest(api.baseUrl, owner, 'GET', '/dashboard/configuracoes');
    expect(page.text).not.toContain('EAAB-first');
    expect(page.text).toContain('Um token está guardado');

    // Blank token: kept; browser pixel unchecked: off; test code emptied: removed.
    expect((await post(owner, '/meta', form({ pixel_id: '999' }))).status).toBe(303);
    const after = await storeRow(api, storeId);
    expect(after).toMatchObject({ meta_pixel_id: '999', meta_test_event_code: null, meta_browser_pixel: 0 });
    expect(after.meta_access_token_sealed).toBe(row.meta_access_token_sealed);
    const audit = await api.db
      .selectFrom('audit_log')
      .select('detail')
      .where('store_id', '=', storeId)
      .where('action', '=', 'meta_conversions_changed')
      .execute();
    expect(audit.map((a) => a.detail)).toEqual([
      'pixel 123456789012345; token novo; pixel no navegador',
      'pixel 999',
    ]);
    expect(JSON.stringify(audit)).not.toContain('EAAB');

    expect((await post(owner, '/meta/remover', {})).status).toBe(303);
    expect((await api.as(key).get('/store')).body.conversions.meta).toBeNull();
    expect((await storeRow(api, storeId)).meta_access_token_sealed).toBeNull();
  });

  it('shows a refused token on the sale page as a failure, the sale untouched and counted in metrics', async () => {
    let worker: ConversionWorker | null = null;
    try {
      const shop = await createShop(api);
      const session = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'owner'));
      const pixelId = newPixelId();
      await dashboardRequest(api.baseUrl, session, 'POST', '/dashboard/configuracoes/meta', {
        pixel_id: pixelId,
        access_token: 'EAAB-expired',
        test_event_code: '',
      });
      const failedBefore = await conversionCount('Purchase', 'failed');
      graph.respondWith(
        metaError(401, 'Error validating access token: Session has expired.'),
        metaError(401, 'Error validating access token: Session has expired.'),
      );
      worker = startTestConversionWorker(api, graph);
      const { token } = await placeOrder(api, shop);
      await pageRequest(api, 'POST', `/p/o/${token}/simulate`, {});
      await eventually(async () => {
        const rows = await conversionRows(api, shop.storeId);
        return rows.length === 2 && rows.every((r) => r.status === 'failed');
      });
      expect(sentTo(graph, pixelId)).toHaveLength(2);
      expect(await conversionCount('Purchase', 'failed')).toBe(failedBefore + 1);
      const { sale_id: saleId } = await api.db
        .selectFrom('orders')
        .select('sale_id')
        .where('id', '=', await orderIdOf(api, token!))
        .executeTakeFirstOrThrow();
      const sale = await api.as(shop.key).get(`/sales/${saleId}`);
      expect(sale.body.status).toBe('approved');
      const page = await dashboardRequest(api.baseUrl, session, 'GET', `/dashboard/vendas/${saleId}`);
      expect(page.status).toBe(200);
      const section = page.text.slice(page.text.indexOf('id="conversoes-meta"'));
      expect(section).toContain('Purchase (venda aprovada)');
      expect(section).toContain('InitiateCheckout (pedido criado)');
      expect(section).toContain('Falhou');
      expect(section).toContain('Meta answered 401: Error validating access token: Session has expired.');
    } finally {
      await worker?.stop();
    }
  });
});
