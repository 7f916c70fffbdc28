import { beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest, memberPerRole } from '../support/dashboard.js';
import { chargeOfOrder, createShop, placeOrder } from '../pages/page-support.js';
import type { Shop } from '../pages/page-support.js';
import { cloneSales, paidSale } from './vendas-support.js';

const HOSTILE = '<script>alert(1)</script> "aspas"';

/** The sale ids of a Vendas page, in the order shown. */
const listedIds = (html: string) =>
  [...html.matchAll(/href="\/dashboard\/vendas\/([0-9a-f-]{36})"/g)].map((m) => m[1]!);
const nextLink = (html: string) =>
  /<a href="(\/dashboard\/vendas\?[^"]*)">Próxima página<\/a>/.exec(html)?.[1]?.replace(/&amp;/g, '&');

describeEachDatabase('dashboard Vendas', (api: TestApi) => {
  let shop: Shop;
  const { get, post, signIn } = memberPerRole(api);
  let ana: string;
  let hostile: string;
  let bought: string;
  let refunded: string;
  let foreign: string;
  let oldSale: string;

  beforeAll(async () => {
    shop = await createShop(api, {}, 'Loja Vendas');
    await signIn(shop.storeId);
    const other = await api.createStore({ name: 'Outra Loja' });
    foreign = await paidSale(api, other.key, 5, { name: 'Fora da Loja', email: 'fora@example.com' });

    oldSale = await paidSale(api, shop.key, 7, { name: 'Velha Compra', email: 'velha@example.com' });
    // 02:59:59.999 UTC on 10 Jan is still 9 Jan in São Paulo.
    await api.db
      .updateTable('sales')
      .set({ created_at: '2026-01-10T02:59:59.999Z' })
      .where('id', '=', oldSale)
      .execute();
    ana = await paidSale(api, shop.key, 10, {
      name: 'Ana Souza',
      email: 'ana.souza@example.com',
      document: '529.982.247-25',
    });
    hostile = await paidSale(api, shop.key, 20, { name: HOSTILE, email: 'hostil@example.com' });
    refunded = await paidSale(api, shop.key, 30, { name: 'Rui Reembolso' });
    expect((await api.as(shop.key).post(`/sales/${refunded}/refund`)).status).toBe(200);
    const { token } = await placeOrder(api, shop, { name: 'Paula Página', email: 'paula@example.com' });
    await api.as(shop.key).post(`/payments/pix/${await chargeOfOrder(api, token!)}/simulate_payment`);
    bought = (
      await api.db
        .selectFrom('sales')
        .select('id')
        .where('product_id', '=', shop.product.id)
        .executeTakeFirstOrThrow()
    ).id;
  });

  describe('the list', () => {
    it("shows the store's sales newest first, never another store's", async () => {
      const page = await get('viewer', '/dashboard/vendas');
      expect(page.status).toBe(200);
      expect(listedIds(page.text)).toEqual([bought, refunded, hostile, ana, oldSale]);
      expect(page.text).not.toContain(foreign);
      expect(page.text).toContain('href="/dashboard/vendas.csv"');
    });

    it('a sale bought through the purchase page appears with its product', async () => {
      const page = await get('viewer', `/dashboard/vendas?produto=${shop.product.id}`);
      expect(listedIds(page.text)).toEqual([bought]);
      expect(page.text).toContain('Paula Página</td><td data-label="Produto">Curso de Violão</td>');
    });

    it.each([
      ['status=refunded', () => [refunded]],
      ['status=approved&q=ana', () => [ana]],
      ['q=ANA.SOUZA%40EXAMPLE.COM', () => [ana]],
      // The purchase page's buyer has the same CPF.
      ['q=529.982.247-25', () => [bought, ana]],
      ['q=52998224725', () => [bought, ana]],
      ['q=souz', () => [ana]],
      ['q=%25', () => []],
      ['q=nobody%40example.com', () => []],
      ['de=2026-01-09&ate=2026-01-09', () => [oldSale]],
      ['de=2026-01-10&ate=2026-01-10', () => []],
      ['ate=2026-01-09', () => [oldSale]],
    ])('filters in the database: %s', async (query, expected) => {
      const page = await get('viewer', `/dashboard/vendas?${query}`);
      expect(page.status).toBe(200);
      expect(listedIds(page.text)).toEqual(expected());
    });

    it('the export link carries the same filters', async () => {
      const page = await get('viewer', '/dashboard/vendas?status=approved&q=ana&de=&produto=');
      expect(page.text).toContain('href="/dashboard/vendas.csv?status=approved&amp;q=ana"');
    });

    it.each(['status=paid', 'de=10/01/2026', 'produto=1', `q=${'a'.repeat(201)}`, 'antes=nope', 'x=1'])(
      'refuses a bad filter: %s',
      async (query) => {
        expect((await get('viewer', `/dashboard/vendas?${query}`)).status).toBe(400);
      },
    );

    it('a search of 200 characters is accepted', async () => {
      expect((await get('viewer', `/dashboard/vendas?q=${'a'.repeat(200)}`)).status).toBe(200);
    });

    it('escapes a hostile customer name', async () => {
      const page = await get('viewer', '/dashboard/vendas');
      expect(page.text).not.toContain('<script>alert(1)');
      expect(page.text).toContain('&lt;script>alert(1)&lt;/script> &quot;aspas&quot;');
    });
  });

  describe('a sale', () => {
    it('shows items, coupon, customer, charge, events and the delivery e-mail', async () => {
      const page = await get('viewer', `/dashboard/vendas/${bought}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(
        '<td data-label="Item">Curso de Violão</td><td data-label="Tipo">Produto</td>',
      );
      expect(page.text).toContain('Cupom: nenhum');
      expect(page.text).toContain('<dd>paula@example.com</dd>');
      expect(page.text).toContain('<dd>52998224725</dd>');
      const charge = (
        await api.db
          .selectFrom('sales')
          .select('pix_charge_id')
          .where('id', '=', bought)
          .executeTakeFirstOrThrow()
      ).pix_charge_id!;
      expect(page.text).toContain(`<dd>${charge}</dd>`);
      expect(page.text).toContain('<code>pix.paid</code>');
      expect(page.text).toContain('<code>sale.approved</code>');
      // No SMTP_URL in this service: the e-mail was skipped.
      expect(page.text).toContain('Não enviado');
    });

    it('escapes a hostile customer name', async () => {
      const page = await get('viewer', `/dashboard/vendas/${hostile}`);
      expect(page.text).not.toContain('<script>alert(1)');
      expect(page.text).toContain('&lt;script>alert(1)&lt;/script> &quot;aspas&quot;');
    });

    it("another store's sale, or no sale, is 404", async () => {
      expect((await get('owner', `/dashboard/vendas/${foreign}`)).status).toBe(404);
      expect((await get('owner', '/dashboard/vendas/not-a-uuid')).status).toBe(404);
      expect((await get('owner', `/dashboard/vendas/${foreign}/reembolso`)).status).toBe(404);
      expect((await post('owner', `/dashboard/vendas/${foreign}/reembolso`)).status).toBe(404);
      expect((await post('owner', `/dashboard/vendas/${foreign}/reenviar-email`)).status).toBe(404);
      const row = await api.db
        .selectFrom('sales')
        .select('status')
        .where('id', '=', foreign)
        .executeTakeFirstOrThrow();
      expect(row.status).toBe('approved');
    });

    it('only an owner sees "Reembolsar"; editors and owners see "Reenviar e-mail"', async () => {
      const owner = await get('owner', `/dashboard/vendas/${ana}`);
      expect(owner.text).toContain('>Reembolsar</button>');
      expect(owner.text).toContain('>Reenviar e-mail</button>');
      const editor = await get('editor', `/dashboard/vendas/${ana}`);
      expect(editor.text).not.toContain('>Reembolsar</button>');
      expect(editor.text).toContain('>Reenviar e-mail</button>');
      const viewer = await get('viewer', `/dashboard/vendas/${ana}`);
      expect(viewer.text).not.toContain('>Reenviar e-mail</button>');
    });

    it.each(['viewer', 'editor'] as const)('a %s refund POST is 403 and changes nothing', async (role) => {
      expect((await post(role, `/dashboard/vendas/${ana}/reembolso`)).status).toBe(403);
      expect((await get(role, `/dashboard/vendas/${ana}/reembolso`)).status).toBe(403);
      expect((await api.as(shop.key).get(`/sales/${ana}`)).body.status).toBe('approved');
      // The API's refund of another sale in beforeAll is audited too (with its key): only this sale counts.
      const audits = await api.db
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', 'sale_refunded')
        .where('detail', 'like', `%${ana}%`)
        .execute();
      expect(audits).toEqual([]);
    });

    it('a viewer may not resend the e-mail', async () => {
      expect((await post('viewer', `/dashboard/vendas/${ana}/reenviar-email`)).status).toBe(403);
    });

    it('the service refusing a resend (no SMTP) is a message on the page', async () => {
      const page = await post('editor', `/dashboard/vendas/${ana}/reenviar-email`);
      expect(page.status).toBe(400);
      expect(page.text).toContain(
        'Não foi possível reenviar o e-mail: o serviço não tem envio de e-mail configurado',
      );
      expect(page.text).toContain('role="alert"');
    });

    it("the owner's refund is the API's refund: sale refunded, sale.refunded event, audited", async () => {
      const confirm = await get('owner', `/dashboard/vendas/${ana}/reembolso`);
      expect(confirm.status).toBe(200);
      expect(confirm.text).toContain('>Confirmar reembolso</button>');
      const done = await post('owner', `/dashboard/vendas/${ana}/reembolso`);
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe(`/dashboard/vendas/${ana}?feito=reembolso`);
      const sale = await api.as(shop.key).get(`/sales/${ana}`);
      expect(sale.body.status).toBe('refunded');
      expect(sale.body.refund.status).toBe('succeeded');
      const events = await api.as(shop.key).get('/events?type=sale.refunded&limit=100');
      expect(events.body.data.filter((e: any) => e.data.object.id === ana)).toHaveLength(1);
      const audits = await api.db
        .selectFrom('audit_log')
        .select(['detail', 'user_id'])
        .where('store_id', '=', shop.storeId)
        .where('action', '=', 'sale_refunded')
        .where('detail', 'like', `%${ana}%`)
        .execute();
      expect(audits).toHaveLength(1);
      expect(audits[0]!.detail).toContain(ana);
      const page = await get('owner', `/dashboard/vendas/${ana}?feito=reembolso`);
      expect(page.text).toContain('Venda reembolsada.');
      expect(page.text).toContain('<code>sale.refunded</code>');
      expect(page.text).not.toContain('>Reembolsar</button>');
    });

    it('refunding again is a message from the refund service, not a 500, and nothing more happens', async () => {
      const page = await post('owner', `/dashboard/vendas/${refunded}/reembolso`);
      expect(page.status).toBe(400);
      expect(page.text).toContain('Não foi possível reembolsar: esta venda já foi reembolsada.');
      const events = await api.as(shop.key).get('/events?type=sale.refunded&limit=100');
      expect(events.body.data.filter((e: any) => e.data.object.id === refunded)).toHaveLength(1);
    });
  });

  describe('pagination', () => {
    it('walks every sale once, newest first, 50 a page', async () => {
      const store = await createShop(api, {}, 'Loja Cheia');
      const viewer = await dashboardLogin(api.baseUrl, await addDashboardUser(api, store.storeId, 'viewer'));
      const first = await paidSale(api, store.key, 3, { name: 'Primeira' });
      const all = [first, ...(await cloneSales(api, first, 100))];
      const seen: string[] = [];
      let path: string | undefined = '/dashboard/vendas';
      let pages = 0;
      while (path) {
        const page = await dashboardRequest(api.baseUrl, viewer, 'GET', path);
        expect(page.status).toBe(200);
        seen.push(...listedIds(page.text));
        path = nextLink(page.text);
        pages += 1;
      }
      expect(pages).toBe(3);
      expect(seen).toEqual(all);
    });
  });
});
