import { beforeAll, expect, it } from 'vitest';
import { hashOrderToken } from '../../src/domain/orders/order-object.js';
import { orderIdOf } from '../orders/orders-support.js';
import { chargeOfOrder, createShop, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { recurringProduct, subscribe } from '../subscriptions/subscription-helpers.js';
import { axeViolations, describeInChromium } from '../support/chromium.js';
import { addDashboardUser, dashboardBrowserLogin } from '../support/dashboard.js';
import type { DashboardUser } from '../support/dashboard.js';
import { phoneFit, phonePage } from '../support/dashboard-browser.js';
import { describeEachDatabase } from '../support/test-api.js';
import { paidSale } from './vendas-support.js';

/* Realistic data at its longest: names, e-mails and addresses a phone has to wrap. */
const LONG_NAME = 'Maria Aparecida Conceição Nascimento Albuquerque de Oliveira';
const LONG_EMAIL = 'maria.aparecida.conceicao.nascimento.albuquerque@provedor-de-email.example.com';
const LONG_PRODUCT = 'Curso Completo de Violão Popular Brasileiro para Iniciantes e Intermediários';
const LONG_URL =
  'https://integracoes.minha-loja-de-cursos-online.example.com/storefront/webhooks/recebedor-de-vendas-aprovadas?token=0123456789abcdef0123456789abcdef';

describeInChromium('the dashboard on a phone (360 × 740, isMobile)', (browser) => {
  describeEachDatabase('every page fits 360 px', (api) => {
    let shop: Shop;
    let owner: DashboardUser;
    let saleId: string;
    let endpointId: string;

    beforeAll(async () => {
      shop = await createShop(api, { nome: LONG_PRODUCT }, 'Loja de Cursos de Música da Maria Aparecida');
      owner = await addDashboardUser(api, shop.storeId, 'owner', LONG_EMAIL);
      await addDashboardUser(api, shop.storeId, 'viewer');
      saleId = await paidSale(api, shop.key, 1234.56, { name: LONG_NAME, email: LONG_EMAIL });
      const { token: abandoned } = await placeOrder(api, shop, { name: LONG_NAME, email: LONG_EMAIL });
      await api.as(shop.key).post(`/orders/${await orderIdOf(api, abandoned!)}/simulate_abandonment`);
      await api.db
        .updateTable('orders')
        .set({ recovery_email_status: 'sent' })
        .where('token_hash', '=', hashOrderToken(abandoned!))
        .execute();
      const { token: paid } = await placeOrder(api, shop, { name: LONG_NAME, email: LONG_EMAIL });
      await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, paid!)}/simulate_payment`);
      const recurring = await recurringProduct(api, shop.key, { nome: `${LONG_PRODUCT} (assinatura)` });
      await subscribe(api, shop.key, recurring.id);
      await api.as(shop.key).post('/coupons', { code: 'BEMVINDOALUNONOVO2026', percent_off: 10 });
      const endpoint = await api.as(shop.key).post('/webhooks', { url: LONG_URL, events: ['sale.approved'] });
      endpointId = endpoint.body.id;
    });

    it('every dashboard page: no sideways scroll, every row field on screen, axe clean', async () => {
      const w = await phonePage(browser(), api);
      try {
        const { page } = w;
        await dashboardBrowserLogin(page, api.baseUrl, owner);
        const paths = [
          '/dashboard',
          '/dashboard/vendas',
          `/dashboard/vendas/${saleId}`,
          '/dashboard/pedidos',
          '/dashboard/assinaturas',
          '/dashboard/produtos',
          `/dashboard/produtos/${shop.product.id}`,
          '/dashboard/checkouts',
          `/dashboard/checkouts/${shop.checkoutId}`,
          '/dashboard/cupons',
          '/dashboard/cupons/novo',
          '/dashboard/desenvolvedores',
          `/dashboard/desenvolvedores/webhooks/${endpointId}`,
          '/dashboard/desenvolvedores/eventos',
          '/dashboard/configuracoes',
          '/dashboard/configuracoes/psp',
        ];
        const measured: Record<string, unknown> = {};
        for (const path of paths) {
          const response = await page.goto(`${api.baseUrl}${path}`);
          expect(response?.status(), path).toBe(200);
          measured[path] = { ...(await phoneFit(page)), axe: await axeViolations(page) };
        }
        console.log(JSON.stringify(measured, null, 1));
        for (const path of paths) {
          expect(measured[path], path).toEqual({ width: 360, offscreen: [], axe: [] });
        }
        expect(w.foreign).toEqual([]);
        expect(w.problems).toEqual([]);
      } finally {
        await w.close();
      }
    });
  });
});
