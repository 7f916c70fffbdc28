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
  let pendingToken: string;
  let paidToken: string;
  let foreignOrderId: string;

  beforeAll(async () => {
    shop = await createShop(api);
    owner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'owner'));
    editor = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'editor'));
    viewer = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'viewer'));

    pendingToken = await order(api, shop, 'Pedro Pendente');
    const paid = (paidToken = await order(api, shop, 'Paula Paga'));
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
    foreignOrderId = await orderIdOf(api, await order(api, other, 'Fora Daqui'));

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

  it('Pedidos: each row opens its order’s page; a pending one offers its payment link to copy (no JS needed)', async () => {
    const list = await dashboardRequest(api.baseUrl, viewer, 'GET', '/dashboard/pedidos');
    const pendingId = await orderIdOf(api, pendingToken);
    expect(list.text).toContain(`href="/dashboard/pedidos/${pendingId}"`);
    const page = await dashboardRequest(api.baseUrl, viewer, 'GET', `/dashboard/pedidos/${pendingId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Pedro Pendente');
    expect(page.text).toContain('R$ 100,00');
    expect(page.text).toContain('Copiar link de pagamento');
    // The link itself is in a read-only field, to copy by hand where no script runs.
    const link = /<input id="link-pagamento" readonly(?:="")? value="([^"]+)"/.exec(page.text);
    expect(link).not.toBeNull();
    expect(link![1]).toContain(`/p/o/${pendingToken}`);
    // A viewer sees no simulation.
    expect(page.text).not.toContain('Simular');

    const paidId = await orderIdOf(api, paidToken);
    const paidPage = await dashboardRequest(api.baseUrl, viewer, 'GET', `/dashboard/pedidos/${paidId}`);
    expect(paidPage.text).not.toContain('Copiar link de pagamento');
    expect(paidPage.text).toContain('Aprovada');

    const foreign = await dashboardRequest(
      api.baseUrl,
      viewer,
      'GET',
      `/dashboard/pedidos/${foreignOrderId}`,
    );
    expect(foreign.status).toBe(404);
  });

  it('a refunded sale’s order reads Reembolsado, not Pago, in Pedidos and on its page', async () => {
    const token = await order(api, shop, 'Renato Reembolsado');
    await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, token)}/simulate_payment`);
    const id = await orderIdOf(api, token);
    const saleId = (await api.as(shop.key).get(`/orders/${id}`)).body.sale_id;
    expect((await api.as(shop.key).post(`/sales/${saleId}/refund`)).status).toBe(200);
    const list = await dashboardRequest(api.baseUrl, viewer, 'GET', '/dashboard/pedidos');
    expect(rowWith(list.text, 'Renato Reembolsado')).toMatch(/ Reembolsado /);
    expect(rowWith(list.text, 'Renato Reembolsado')).not.toMatch(/ Pago /);
    const page = await dashboardRequest(api.baseUrl, viewer, 'GET', `/dashboard/pedidos/${id}`);
    expect(page.text).toContain('Reembolsado');
    expect(page.text).toContain('Reembolsada');
  });

  it('the order page’s test-mode simulations: editors and owners, with CSRF; abandonment, then the Pix paid', async () => {
    const token = await order(api, shop, 'Sílvia Simulada');
    const id = await orderIdOf(api, token);
    const page = await dashboardRequest(api.baseUrl, editor, 'GET', `/dashboard/pedidos/${id}`);
    for (const label of ['Simular abandono', 'Simular pagamento do Pix', 'Simular expiração do Pix'])
      expect(page.text).toContain(label);
    const base = `/dashboard/pedidos/${id}/simular`;
    expect((await dashboardRequest(api.baseUrl, viewer, 'POST', `${base}/abandono`)).status).toBe(403);
    const noCsrf = await dashboardRequest(
      api.baseUrl,
      editor,
      'POST',
      `${base}/abandono`,
      {},
      { csrf: false },
    );
    expect(noCsrf.status).toBe(403);
    expect((await api.as(shop.key).get(`/orders/${id}`)).body.status).toBe('pending');

    const abandoned = await dashboardRequest(api.baseUrl, editor, 'POST', `${base}/abandono`);
    expect(abandoned.status).toBe(303);
    expect(abandoned.headers.get('location')).toBe(`/dashboard/pedidos/${id}?aviso=abandono`);
    expect((await api.as(shop.key).get(`/orders/${id}`)).body.status).toBe('abandoned');
    // Abandoned once: a second abandonment does not apply, and says so.
    const again = await dashboardRequest(api.baseUrl, editor, 'POST', `${base}/abandono`);
    expect(again.headers.get('location')).toBe(`/dashboard/pedidos/${id}?aviso=recusada`);
    const paid = await dashboardRequest(api.baseUrl, owner, 'POST', `${base}/pagamento`);
    expect(paid.headers.get('location')).toBe(`/dashboard/pedidos/${id}?aviso=pagamento`);
    expect((await api.as(shop.key).get(`/orders/${id}`)).body.status).toBe('paid');
    const after = await dashboardRequest(
      api.baseUrl,
      owner,
      'GET',
      `/dashboard/pedidos/${id}?aviso=pagamento`,
    );
    expect(after.text).toContain('Pagamento simulado.');
    expect(after.text).not.toContain('Simular');
  });

  it('a subscription’s page: its cycles and sales; the test-mode simulations play the API’s, for editors and owners', async () => {
    const product = await recurringProduct(api, shop.key, { nome: 'Clube do Café' });
    const sub = (await subscribe(api, shop.key, product.id)).body;
    const list = await dashboardRequest(api.baseUrl, viewer, 'GET', '/dashboard/assinaturas');
    expect(list.text).toContain(`href="/dashboard/assinaturas/${sub.id}"`);
    const path = `/dashboard/assinaturas/${sub.id}`;
    const asViewer = await dashboardRequest(api.baseUrl, viewer, 'GET', path);
    expect(asViewer.status).toBe(200);
    expect(asViewer.text).toContain('Clube do Café');
    expect(rowWith(asViewer.text, 'Aguardando pagamento')).toMatch(/^1 .* R\$ 49,90 Aguardando pagamento —$/);
    expect(asViewer.text).toContain('Nenhuma venda ainda.');
    expect(asViewer.text).not.toContain('Simular');
    expect((await dashboardRequest(api.baseUrl, viewer, 'POST', `${path}/simular/pagamento`)).status).toBe(
      403,
    );
    const noCsrf = await dashboardRequest(
      api.baseUrl,
      editor,
      'POST',
      `${path}/simular/pagamento`,
      {},
      { csrf: false },
    );
    expect(noCsrf.status).toBe(403);

    const asEditor = await dashboardRequest(api.baseUrl, editor, 'GET', path);
    expect(asEditor.text).toContain('Simular pagamento da primeira cobrança');
    expect(asEditor.text).not.toContain('Simular renovação');
    const simulate = async (acao: string) => {
      const res = await dashboardRequest(api.baseUrl, editor, 'POST', `${path}/simular/${acao}`);
      expect(res.status).toBe(303);
      return res.headers.get('location');
    };
    expect(await simulate('pagamento')).toBe(`${path}?aviso=pagamento`);
    expect((await api.as(shop.key).get(`/subscriptions/${sub.id}`)).body.status).toBe('active');
    expect(await simulate('renovacao')).toBe(`${path}?aviso=renovacao`);
    expect(await simulate('falha')).toBe(`${path}?aviso=falha`);
    expect((await api.as(shop.key).get(`/subscriptions/${sub.id}`)).body.status).toBe('past_due');
    const page = await dashboardRequest(api.baseUrl, owner, 'GET', `${path}?aviso=falha`);
    expect(page.text).toContain('Falha simulada.');
    expect(rowWith(page.text, 'Paga')).toMatch(/^1 /);
    expect(rowsOf(page.text).filter((row) => /^2 .* R\$ 49,90 Paga /.test(row))).toHaveLength(1);
    expect(rowsOf(page.text).some((row) => /^3 .* Agendada \(1 tentativa falhou\)/.test(row))).toBe(true);
    // Its two sales, cycle 1 and 2, each linking to Vendas.
    const sales = rowsOf(page.text).filter((row) => row.includes('Aprovada'));
    expect(sales).toHaveLength(2);
    expect(page.text).toContain('Ver em Vendas');
    expect(page.text).toContain('Simular cancelamento pelo comprador');
    expect(await simulate('cancelamento-comprador')).toBe(`${path}?aviso=cancelamento-comprador`);
    expect((await api.as(shop.key).get(`/subscriptions/${sub.id}`)).body).toMatchObject({
      status: 'canceled',
      cancel_reason: 'buyer',
    });
    expect(await simulate('renovacao')).toBe(`${path}?aviso=recusada`);
    const ended = await dashboardRequest(api.baseUrl, owner, 'GET', path);
    expect(ended.text).toContain('Cancelada pelo comprador');
    expect(ended.text).not.toContain('Simular');
  });

  it('the simulations are test mode’s: a store charging live has none', async () => {
    const store = await api.createStore({ name: 'Loja ao vivo' });
    const product = await recurringProduct(api, store.key);
    const sub = (await subscribe(api, store.key, product.id)).body;
    const member = await dashboardLogin(api.baseUrl, await addDashboardUser(api, store.storeId, 'owner'));
    await api.db
      .updateTable('stores')
      .set({ checkout_mode: 'live' })
      .where('id', '=', store.storeId)
      .execute();
    const res = await dashboardRequest(
      api.baseUrl,
      member,
      'POST',
      `/dashboard/assinaturas/${sub.id}/simular/pagamento`,
    );
    expect(res.status).toBe(404);
    expect((await api.as(store.key).get(`/subscriptions/${sub.id}`)).body.status).toBe('pending');
  });

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
    let shop: Shop;
    beforeAll(async () => {
      shop = await createShop(api);
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

    it('an order’s page and a subscription’s page: axe clean at 360 px, the link to copy, the simulations by keyboard', async () => {
      const pendingId = await orderIdOf(api, await order(api, shop, 'Pedro Pendente'));
      const sub = (
        await subscribe(api, shop.key, (await recurringProduct(api, shop.key, { nome: 'Clube do Chá' })).id)
      ).body;
      const context = await browser!.newContext({ viewport: { width: 360, height: 800 }, locale: 'pt-BR' });
      try {
        const page = await context.newPage();
        const watch = await watchPage(page, api.baseUrl);
        await dashboardBrowserLogin(page, api.baseUrl, user);
        await page.goto(`${api.baseUrl}/dashboard/pedidos`);
        await page.locator(`a[href="/dashboard/pedidos/${pendingId}"]`).click();
        await page.waitForURL(new RegExp(`/dashboard/pedidos/${pendingId}$`));
        expect(await page.getByLabel('Link de pagamento').inputValue()).toContain('/p/o/');
        expect(await page.getByRole('button', { name: 'Copiar link de pagamento' }).count()).toBe(1);
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);

        await page.goto(`${api.baseUrl}/dashboard/assinaturas`);
        await page.getByRole('link', { name: 'Clube do Chá' }).click();
        await page.waitForURL(new RegExp(`/dashboard/assinaturas/${sub.id}$`));
        expect(await axeViolations(page)).toEqual([]);
        expect(await horizontalOverflow(page)).toBe(0);
        // The keyboard reaches and presses a simulation.
        await page.getByRole('button', { name: 'Simular pagamento da primeira cobrança' }).focus();
        await page.keyboard.press('Enter');
        await expect.poll(() => page.getByText('Pagamento simulado.').count()).toBe(1);
        expect(await page.getByRole('cell', { name: 'Aprovada' }).count()).toBe(1);
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
