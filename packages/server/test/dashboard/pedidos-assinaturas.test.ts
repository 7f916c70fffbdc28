import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashOrderToken } from '../../src/domain/orders/order-object.js';
import { orderIdOf } from '../orders/orders-support.js';
import {
  axeViolations,
  chromiumAvailable,
  chromiumSuiteTitle,
  failWithoutRequiredChromium,
  launchChromium,
  watchPage,
} from '../support/chromium.js';
import {
  addDashboardUser,
  dashboardBrowserLogin,
  dashboardLogin,
  dashboardRequest,
} from '../support/dashboard.js';
import type { DashboardSession, DashboardUser } from '../support/dashboard.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { chargeOfOrder, createShop, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { recurringProduct, subscribe } from '../subscriptions/subscription-helpers.js';
import { eventTypesOf } from '../support/store-records.js';

const HOSTILE = `<script>alert("x")</script> "Zé"`;

/** The table rows of a page, each as its text with tags removed and spaces folded. */
function rowsOf(html: string): string[] {
  return [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((match) =>
    match[1]!
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  );
}

const rowWith = (html: string, text: string) => rowsOf(html).find((row) => row.includes(text));

/** An order placed on the shop's purchase page by a buyer of this name. */
async function order(api: TestApi, shop: Shop, name: string): Promise<string> {
  const { res, token } = await placeOrder(api, shop, { name, email: 'comprador@example.com' });
  if (!token) throw new Error(`order not placed: ${res.status} ${res.text}`);
  return token;
}

failWithoutRequiredChromium();

describeEachDatabase('dashboard Pedidos and Assinaturas', (api) => {
  let shop: Shop;
  let owner: DashboardSession;
  let editor: DashboardSession;
  let viewer: DashboardSession;
  let subscriptionId: string;

  beforeAll(async () => {
    shop = await createShop(api);
    owner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'owner'));
    editor = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'editor'));
    viewer = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'viewer'));

    await order(api, shop, 'Pedro Pendente');
    const paid = await order(api, shop, 'Paula Paga');
    await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, paid)}/simulate_payment`);
    const abandoned = await order(api, shop, 'Abel Abandonou');
    await api.as(shop.key).post(`/orders/${await orderIdOf(api, abandoned)}/simulate_abandonment`);
    await api.db
      .updateTable('orders')
      .set({ recovery_email_status: 'sent' })
      .where('token_hash', '=', hashOrderToken(abandoned))
      .execute();
    const recovered = await order(api, shop, 'Rita Recuperada');
    await api.as(shop.key).post(`/orders/${await orderIdOf(api, recovered)}/simulate_abandonment`);
    await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, recovered)}/simulate_payment`);
    const canceled = await order(api, shop, 'Caio Cancelado');
    await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, canceled)}/cancel`);
    await order(api, shop, HOSTILE);

    const other = await createShop(api, {}, 'Outra Loja');
    await order(api, other, 'Fora Daqui');

    const product = await recurringProduct(api, shop.key);
    const created = await subscribe(api, shop.key, product.id);
    expect(created.status).toBe(201);
    subscriptionId = created.body.id;
  });

  it('Pedidos: every order of the store with its status in Portuguese, newest first; no other store', async () => {
    const page = await dashboardRequest(api.baseUrl, viewer, 'GET', '/dashboard/pedidos');
    expect(page.status).toBe(200);
    expect(rowWith(page.text, 'Pedro Pendente')).toMatch(/Curso de Violão R\$ 100,00 Pendente —$/);
    expect(rowWith(page.text, 'Paula Paga')).toMatch(/ Pago —$/);
    expect(rowWith(page.text, 'Abel Abandonou')).toMatch(/ Abandonado Enviado$/);
    expect(rowWith(page.text, 'Rita Recuperada')).toMatch(/ Pago Recuperado /);
    expect(rowWith(page.text, 'Caio Cancelado')).toMatch(/ Cancelado /);
    expect(rowWith(page.text, 'comprador@example.com')).toBeDefined();
    expect(page.text).not.toContain('Fora Daqui');
    const names = rowsOf(page.text)
      .slice(1)
      .map((row) => row.split(' ')[2]);
    expect(names.slice(1)).toEqual(['Caio', 'Rita', 'Abel', 'Paula', 'Pedro']);
    // The buyer's name is text, never markup.
    expect(page.text).not.toContain('<script>alert');
    expect(page.text).toContain('&lt;script>alert(&quot;x&quot;)&lt;/script>');
  });

  it('Pedidos: the Status filter is applied in the listing', async () => {
    const page = await dashboardRequest(api.baseUrl, viewer, 'GET', '/dashboard/pedidos?status=paid');
    expect(page.status).toBe(200);
    const rows = rowsOf(page.text).slice(1);
    expect(rows).toHaveLength(2);
    expect(rows.every((row) => row.includes(' Pago'))).toBe(true);
    expect(page.text).toContain('<option value="paid" selected>Pago</option>');
    const none = await dashboardRequest(api.baseUrl, viewer, 'GET', '/dashboard/pedidos?status=bogus');
    expect(none.status).toBe(400);
  });

  it('Assinaturas: the API-created subscription with its price per period; editors and viewers cannot cancel', async () => {
    const page = await dashboardRequest(api.baseUrl, viewer, 'GET', '/dashboard/assinaturas');
    expect(page.status).toBe(200);
    expect(rowWith(page.text, 'Ana Souza')).toMatch(/Clube do Violão R\$ 49,90 por mês Pendente/);
    expect(page.text).not.toContain('Cancelar assinatura</button>');
    const asOwner = await dashboardRequest(api.baseUrl, owner, 'GET', '/dashboard/assinaturas');
    expect(asOwner.text).toContain('Cancelar assinatura</button>');
    const filtered = await dashboardRequest(
      api.baseUrl,
      viewer,
      'GET',
      '/dashboard/assinaturas?status=active',
    );
    expect(rowWith(filtered.text, 'Ana Souza')).toBeUndefined();

    for (const session of [editor, viewer]) {
      const refused = await dashboardRequest(
        api.baseUrl,
        session,
        'POST',
        `/dashboard/assinaturas/${subscriptionId}/cancelar`,
      );
      expect(refused.status).toBe(403);
    }
    const noCsrf = await dashboardRequest(
      api.baseUrl,
      owner,
      'POST',
      `/dashboard/assinaturas/${subscriptionId}/cancelar`,
      {},
      { csrf: false },
    );
    expect(noCsrf.status).toBe(403);
    const still = await api.as(shop.key).get(`/subscriptions/${subscriptionId}`);
    expect(still.body.status).toBe('pending');
    expect(await eventTypesOf(api, shop.storeId, subscriptionId)).not.toContain('subscription.canceled');
  });

  it("the owner's Cancelar assinatura cancels through the API's service (merchant), audited", async () => {
    const confirm = await dashboardRequest(
      api.baseUrl,
      owner,
      'GET',
      `/dashboard/assinaturas/${subscriptionId}/cancelar`,
    );
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Confirmar cancelamento');
    const done = await dashboardRequest(
      api.baseUrl,
      owner,
      'POST',
      `/dashboard/assinaturas/${subscriptionId}/cancelar`,
    );
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/dashboard/assinaturas?aviso=cancelada');
    const seen = await api.as(shop.key).get(`/subscriptions/${subscriptionId}`);
    expect(seen.body).toMatchObject({ status: 'canceled', cancel_reason: 'merchant' });
    expect(await eventTypesOf(api, shop.storeId, subscriptionId)).toContain('subscription.canceled');
    const log = await api.db
      .selectFrom('audit_log')
      .select(['action', 'detail'])
      .where('store_id', '=', shop.storeId)
      .where('action', '=', 'subscription_canceled')
      .execute();
    expect(log).toEqual([{ action: 'subscription_canceled', detail: `${subscriptionId} (Ana Souza)` }]);
    const page = await dashboardRequest(api.baseUrl, owner, 'GET', '/dashboard/assinaturas');
    expect(rowWith(page.text, 'Ana Souza')).toMatch(/ Cancelada /);
    // Once ended, a second cancel changes nothing and says so.
    const again = await dashboardRequest(
      api.baseUrl,
      owner,
      'POST',
      `/dashboard/assinaturas/${subscriptionId}/cancelar`,
    );
    expect(again.headers.get('location')).toBe('/dashboard/assinaturas?aviso=encerrada');
  });

  it('Assinaturas: 50 a page; the 51st is on the older page (keyset), the filter kept', async () => {
    const store = await api.createStore({ name: 'Muitas Assinaturas' });
    const reader = await dashboardLogin(api.baseUrl, await addDashboardUser(api, store.storeId, 'viewer'));
    const product = await recurringProduct(api, store.key);
    const bodyRows = (html: string) => rowsOf(html).slice(1);
    for (let i = 0; i < 50; i++) expect((await subscribe(api, store.key, product.id)).status).toBe(201);
    const full = await dashboardRequest(api.baseUrl, reader, 'GET', '/dashboard/assinaturas?status=pending');
    expect(bodyRows(full.text)).toHaveLength(50);
    expect(full.text).not.toContain('Mais antigos');

    const oldest = await api.db
      .selectFrom('subscriptions')
      .select('id')
      .where('store_id', '=', store.storeId)
      .orderBy('created_at')
      .orderBy('id')
      .executeTakeFirstOrThrow();
    expect((await subscribe(api, store.key, product.id)).status).toBe(201);
    const first = await dashboardRequest(api.baseUrl, reader, 'GET', '/dashboard/assinaturas?status=pending');
    expect(bodyRows(first.text)).toHaveLength(50);
    const link = /href="(\/dashboard\/assinaturas\?status=pending&amp;antes=[^"]+)">Mais antigos/.exec(
      first.text,
    );
    expect(link).not.toBeNull();
    const older = await dashboardRequest(api.baseUrl, reader, 'GET', link![1]!.replace(/&amp;/g, '&'));
    expect(bodyRows(older.text)).toHaveLength(1);
    expect(older.text).not.toContain('Mais antigos');
    // The older page holds the first subscription made: nothing skipped, nothing repeated.
    const ownerSession = await dashboardLogin(
      api.baseUrl,
      await addDashboardUser(api, store.storeId, 'owner'),
    );
    const asOwner = await dashboardRequest(
      api.baseUrl,
      ownerSession,
      'GET',
      link![1]!.replace(/&amp;/g, '&'),
    );
    expect(asOwner.text).toContain(`/dashboard/assinaturas/${oldest.id}/cancelar`);
  }, 120_000);

  it("another store's subscription by URL is 404", async () => {
    const other = await api.createStore({ name: 'Terceira' });
    const product = await recurringProduct(api, other.key);
    const foreign = (await subscribe(api, other.key, product.id)).body.id as string;
    const page = await dashboardRequest(
      api.baseUrl,
      owner,
      'GET',
      `/dashboard/assinaturas/${foreign}/cancelar`,
    );
    expect(page.status).toBe(404);
    const post = await dashboardRequest(
      api.baseUrl,
      owner,
      'POST',
      `/dashboard/assinaturas/${foreign}/cancelar`,
    );
    expect(post.status).toBe(404);
    expect((await api.as(other.key).get(`/subscriptions/${foreign}`)).body.status).toBe('pending');
  });
});

let browser: Browser | undefined;
beforeAll(async () => {
  if (chromiumAvailable) browser = await launchChromium();
});
afterAll(() => browser?.close());

const horizontalOverflow = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe.skipIf(!chromiumAvailable)(chromiumSuiteTitle('Pedidos and Assinaturas in Chromium'), () => {
  describeEachDatabase('Pedidos and Assinaturas pages', (api) => {
    let user: DashboardUser;
    beforeAll(async () => {
      const shop = await createShop(api);
      user = await addDashboardUser(api, shop.storeId, 'owner');
      const recovered = await order(api, shop, HOSTILE);
      await api.as(shop.key).post(`/orders/${await orderIdOf(api, recovered)}/simulate_abandonment`);
      await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, recovered)}/simulate_payment`);
      await subscribe(api, shop.key, (await recurringProduct(api, shop.key)).id);
    });

    it('axe clean at 360 px without horizontal scroll; nothing from another origin', async () => {
      const context = await browser!.newContext({ viewport: { width: 360, height: 800 }, locale: 'pt-BR' });
      try {
        const page = await context.newPage();
        const watch = await watchPage(page, api.baseUrl);
        await dashboardBrowserLogin(page, api.baseUrl, user);
        await page.goto(`${api.baseUrl}/dashboard/pedidos`);
        expect(await page.getByRole('cell', { name: 'Pago Recuperado' }).count()).toBe(1);
        expect(await page.getByLabel('Status').count()).toBe(1);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        await page.goto(`${api.baseUrl}/dashboard/assinaturas`);
        await page.getByRole('button', { name: 'Cancelar assinatura' }).click();
        // A GET form without fields: the URL ends in `cancelar?`.
        await page.waitForURL(/\/cancelar\??$/);
        expect(await axeViolations(page)).toEqual([]);
        await page.getByRole('button', { name: 'Confirmar cancelamento' }).click();
        await expect.poll(() => page.getByText('Assinatura cancelada.').count()).toBe(1);
        expect(await page.getByRole('cell', { name: 'Cancelada' }).count()).toBe(1);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        expect(watch.foreign).toEqual([]);
        expect(watch.problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 120_000);
  });
});
