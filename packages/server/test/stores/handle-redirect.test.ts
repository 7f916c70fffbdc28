import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';
import { createShop, pageRequest, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';

/** A purchase-page URL as a browser's first request sees it: the redirect itself, not where it leads. */
const visit = (api: TestApi, path: string, method: 'GET' | 'HEAD' = 'GET') =>
  fetch(`${api.baseUrl}${path}`, { method, redirect: 'manual' });

describeEachDatabase('a changed handle: old links redirect to the new one', (api: TestApi) => {
  let shop: Shop;
  let owner: DashboardSession;
  let otherOwner: DashboardSession;
  let token: string;
  const setHandle = (session: DashboardSession, name: string, handle: string) =>
    dashboardRequest(api.baseUrl, session, 'POST', '/dashboard/configuracoes/loja', { name, handle });

  beforeAll(async () => {
    shop = await createShop(api, {}, 'Loja Antiga');
    owner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, shop.storeId, 'owner'));
    const other = await api.createStore({ name: 'Loja Vizinha' });
    otherOwner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, other.storeId, 'owner'));
    token = (await placeOrder(api, shop)).token!;
  });

  it('the form says what changes', async () => {
    const page = await dashboardRequest(api.baseUrl, owner, 'GET', '/dashboard/configuracoes');
    expect(page.text).toContain('Os links antigos continuam funcionando e levam ao novo endereço.');
  });

  it('the old page link answers 301 to the new handle, path and query kept; orders still work', async () => {
    const slug = shop.product.slug as string;
    expect((await setHandle(owner, 'Loja Antiga', 'loja-nova')).status).toBe(303);
    for (const method of ['GET', 'HEAD'] as const) {
      const moved = await visit(api, `/p/${shop.handle}/${slug}?utm_source=ig&utm_campaign=volta`, method);
      expect(moved.status, method).toBe(301);
      expect(moved.headers.get('location')).toBe(`/p/loja-nova/${slug}?utm_source=ig&utm_campaign=volta`);
    }
    expect((await visit(api, `/p/${shop.handle}/${slug}`)).headers.get('location')).toBe(
      `/p/loja-nova/${slug}`,
    );
    expect((await visit(api, `/p/loja-nova/${slug}`)).status).toBe(200);
    // An unknown product under the old handle is still a 404, not a redirect.
    expect((await visit(api, `/p/${shop.handle}/nao-existe`)).status).toBe(404);
    // The order link (its token, no handle) keeps working and points at the product's new address.
    const order = await visit(api, `/p/o/${token}`);
    expect(order.status).toBe(200);
    expect(await order.text()).toContain(`/p/loja-nova/${slug}`);
    // A page opened before the change can still order through its old address.
    const late = await pageRequest(api, 'POST', `/p/${shop.handle}/${slug}/orders`, {
      name: 'Maria da Silva',
      email: 'maria@example.com',
      document: '529.982.247-25',
      whatsapp: '(11) 98765-4321',
      bump: false,
    });
    expect(late.status).toBe(201);
  });

  it('another store cannot take the old handle; the store itself can take it back', async () => {
    const slug = shop.product.slug as string;
    const taken = await setHandle(otherOwner, 'Loja Vizinha', shop.handle);
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('já é usado por outra loja');
    // Back to the first handle: it answers the page again, and the second one now redirects to it.
    expect((await setHandle(owner, 'Loja Antiga', shop.handle)).status).toBe(303);
    expect((await visit(api, `/p/${shop.handle}/${slug}`)).status).toBe(200);
    const moved = await visit(api, `/p/loja-nova/${slug}`);
    expect(moved.status).toBe(301);
    expect(moved.headers.get('location')).toBe(`/p/${shop.handle}/${slug}`);
    expect((await setHandle(otherOwner, 'Loja Vizinha', 'loja-nova')).status).toBe(409);
  });
});
