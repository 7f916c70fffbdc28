import { beforeAll, expect, it } from 'vitest';
import { dashboardRequest, memberPerRole } from '../support/dashboard.js';
import { auditOf } from '../support/store-records.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';

const PATH = '/dashboard/cupons';

const form = (fields: Record<string, string>) => ({
  code: '',
  percent_off: '',
  amount_off: '',
  max_redemptions: '',
  expires_on: '',
  product_codes: '',
  ...fields,
});
const createdId = (location: string | null) =>
  /\/dashboard\/cupons\/(cpn_[0-9A-Za-z]{24})\?aviso=criado$/.exec(location ?? '')?.[1];
const fieldError = (html: string, id: string) =>
  new RegExp(`id="f-${id}-error"[^>]*>([^<]*)<`).exec(html)?.[1] ?? null;
/** A São Paulo day `days` from now, as a date field sends it. */
const dayFromNow = (days: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(
    new Date(Date.now() + days * 86_400_000),
  );

describeEachDatabase('dashboard Cupons', (api: TestApi) => {
  let key: string;
  let storeId: string;
  let product: { id: string; codigo: string };
  let other: { id: string; codigo: string };
  const { sessions, get, post, signIn } = memberPerRole(api);
  const couponCount = async () =>
    (await api.db.selectFrom('coupons').select('id').where('store_id', '=', storeId).execute()).length;
  const couponAudit = () => auditOf(api, storeId, 'coupon_');
  async function create(fields: Record<string, string>): Promise<string> {
    const res = await post('editor', PATH, form(fields));
    expect(res.status, res.text).toBe(303);
    return createdId(res.headers.get('location'))!;
  }

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore({ name: 'Loja Cupons' }));
    await signIn(storeId);
    product = (await api.as(key).post('/products', { nome: 'Curso', preco: 100 })).body;
    other = (await api.as(key).post('/products', { nome: 'Ebook', preco: 20 })).body;
  });

  it("creates a coupon with every field; it is the API's coupon, in the audit log", async () => {
    const day = dayFromNow(10);
    const id = await create({
      code: 'bemvindo10',
      percent_off: '10',
      max_redemptions: '100',
      expires_on: day,
      product_codes: `${product.codigo.toLowerCase()}, ${other.codigo}`,
    });
    const coupon = (await api.as(key).get(`/coupons/${id}`)).body;
    expect(coupon).toMatchObject({
      code: 'BEMVINDO10',
      percent_off: 10,
      amount_off: null,
      active: true,
      max_redemptions: 100,
      times_redeemed: 0,
      product_ids: [product.id, other.id],
    });
    // Valid through the whole São Paulo day typed (UTC−3).
    expect(coupon.expires_at).toBe(new Date(`${day}T23:59:59.999-03:00`).toISOString());
    expect(await couponAudit()).toContain('coupon_created: BEMVINDO10');

    const page = await get('editor', `${PATH}/${id}?aviso=criado`);
    expect(page.text).toContain('Cupom criado.');
    expect(page.text).toContain(`value="${day}"`);
    expect(page.text).toContain(`${product.codigo} ${other.codigo}`);
    const list = await get('viewer', PATH);
    expect(list.text).toContain(`href="${PATH}/${id}">BEMVINDO10</a>`);
    expect(list.text).toContain('0 de 100');

    const amount = await create({ code: 'MENOS5', amount_off: '5,50' });
    expect((await api.as(key).get(`/coupons/${amount}`)).body).toMatchObject({
      amount_off: 5.5,
      percent_off: null,
      max_redemptions: null,
      expires_at: null,
      product_ids: [],
    });
  });

  it('edits the limit, validity and products; an unchanged validity is kept as stored', async () => {
    const created = (
      await api.as(key).post('/coupons', {
        code: 'EDITAR',
        percent_off: 5,
        expires_at: new Date(Date.now() + 5 * 86_400_000).toISOString(),
      })
    ).body;
    const page = await get('editor', `${PATH}/${created.id}`);
    const shownDay = /id="f-expires_on"[^>]*value="([0-9-]+)"/.exec(page.text)![1]!;
    const res = await post(
      'editor',
      `${PATH}/${created.id}`,
      form({ max_redemptions: '3', expires_on: shownDay, product_codes: product.codigo }),
    );
    expect(res.status, res.text).toBe(303);
    const after = (await api.as(key).get(`/coupons/${created.id}`)).body;
    expect(after).toMatchObject({
      max_redemptions: 3,
      product_ids: [product.id],
      code: 'EDITAR',
      percent_off: 5,
    });
    expect(after.expires_at).toBe(created.expires_at);
    expect(await couponAudit()).toContain('coupon_updated: EDITAR: max_redemptions, product_ids');

    const cleared = await post('editor', `${PATH}/${created.id}`, form({}));
    expect(cleared.status).toBe(303);
    expect((await api.as(key).get(`/coupons/${created.id}`)).body).toMatchObject({
      max_redemptions: null,
      expires_at: null,
      product_ids: [],
    });
  });

  it('archives and reactivates through the API service', async () => {
    const id = await create({ code: 'ARQUIVAR', percent_off: '20' });
    expect((await post('editor', `${PATH}/${id}/arquivar`)).status).toBe(303);
    expect((await api.as(key).get(`/coupons/${id}`)).body.active).toBe(false);
    const page = await get('editor', `${PATH}/${id}`);
    expect(page.text).toContain('>Reativar</button>');
    expect((await post('editor', `${PATH}/${id}/arquivar`)).status).toBe(303); // again: nothing more
    expect((await post('owner', `${PATH}/${id}/reativar`)).status).toBe(303);
    expect((await api.as(key).get(`/coupons/${id}`)).body.active).toBe(true);
    expect((await couponAudit()).filter((entry) => entry.endsWith('ARQUIVAR'))).toEqual([
      'coupon_created: ARQUIVAR',
      'coupon_archived: ARQUIVAR',
      'coupon_reactivated: ARQUIVAR',
    ]);
  });

  it('refuses a bad field with its message by the field, and writes nothing', async () => {
    await create({ code: 'JAEXISTE', percent_off: '10' });
    const before = await couponCount();
    const cases: [Record<string, string>, string][] = [
      [{ code: 'AB', percent_off: '10' }, 'code'],
      [{ code: 'C'.repeat(41), percent_off: '10' }, 'code'],
      [{ code: 'com espaço', percent_off: '10' }, 'code'],
      [{ code: 'jaexiste', percent_off: '10' }, 'code'],
      [{ code: 'NENHUM' }, 'percent_off'],
      [{ code: 'DOIS', percent_off: '10', amount_off: '5' }, 'amount_off'],
      [{ code: 'ZERO', percent_off: '0' }, 'percent_off'],
      [{ code: 'MUITO', percent_off: '101' }, 'percent_off'],
      [{ code: 'MEIO', percent_off: '10,5' }, 'percent_off'],
      [{ code: 'CENTAVO', amount_off: '0,001' }, 'amount_off'],
      [{ code: 'GRANDE', amount_off: '1.000.000,01' }, 'amount_off'],
      [{ code: 'LIMITE', percent_off: '10', max_redemptions: '0' }, 'max_redemptions'],
      [{ code: 'LIMITE', percent_off: '10', max_redemptions: '1000000001' }, 'max_redemptions'],
      [{ code: 'LIMITE', percent_off: '10', max_redemptions: 'dez' }, 'max_redemptions'],
      [{ code: 'VENCIDO', percent_off: '10', expires_on: dayFromNow(-1) }, 'expires_on'],
      [{ code: 'DATA', percent_off: '10', expires_on: '31/12/2030' }, 'expires_on'],
      [{ code: 'PRODUTO', percent_off: '10', product_codes: 'PRD-NAOEXISTE' }, 'product_codes'],
    ];
    for (const [fields, field] of cases) {
      const res = await post('editor', PATH, form(fields));
      expect(res.status, `${field} ${JSON.stringify(fields)}`).toBe(400);
      expect(fieldError(res.text, field), `${field} ${JSON.stringify(fields)}`).toBeTruthy();
      expect(res.text).toContain('Nada foi salvo');
    }
    expect(await couponCount()).toBe(before);
  });

  it('accepts the limits themselves: 3 and 40 characters, 1% and 100%, R$ 0,01 and R$ 1.000.000,00, 1 and 1.000.000.000 uses, today', async () => {
    const ok: Record<string, string>[] = [
      { code: 'TRE', percent_off: '1', max_redemptions: '1', expires_on: dayFromNow(0) },
      { code: 'Q'.repeat(40), percent_off: '100', max_redemptions: '1000000000' },
      { code: 'UMCENTAVO', amount_off: '0,01' },
      { code: 'UMMILHAO', amount_off: '1.000.000,00' },
    ];
    for (const fields of ok)
      expect((await api.as(key).get(`/coupons/${await create(fields)}`)).status).toBe(200);
  });

  it('a limit below the uses already counted is refused by the same rule as the API', async () => {
    const id = await create({ code: 'USADO', percent_off: '10', max_redemptions: '5' });
    await api.db.updateTable('coupons').set({ times_redeemed: 2 }).where('id', '=', id).execute();
    const res = await post('editor', `${PATH}/${id}`, form({ max_redemptions: '1' }));
    expect(res.status).toBe(400);
    expect(fieldError(res.text, 'max_redemptions')).toBeTruthy();
    expect((await api.as(key).get(`/coupons/${id}`)).body.max_redemptions).toBe(5);
    expect((await post('editor', `${PATH}/${id}`, form({ max_redemptions: '2' }))).status).toBe(303);
  });

  it('viewers read only: no form, every POST 403 and nothing changes', async () => {
    const id = await create({ code: 'LEITURA', percent_off: '10' });
    const list = await get('viewer', PATH);
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('Novo cupom');
    const page = await get('viewer', `${PATH}/${id}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('name="max_redemptions"');
    expect((await get('viewer', `${PATH}/novo`)).status).toBe(403);
    const before = await couponCount();
    expect((await post('viewer', PATH, form({ code: 'INTRUSO', percent_off: '10' }))).status).toBe(403);
    expect((await post('viewer', `${PATH}/${id}`, form({ max_redemptions: '1' }))).status).toBe(403);
    expect((await post('viewer', `${PATH}/${id}/arquivar`)).status).toBe(403);
    expect(await couponCount()).toBe(before);
    expect((await api.as(key).get(`/coupons/${id}`)).body).toMatchObject({
      active: true,
      max_redemptions: null,
    });
  });

  it('refuses a POST without the CSRF token (403) and writes nothing', async () => {
    const before = await couponCount();
    const res = await dashboardRequest(
      api.baseUrl,
      sessions.owner,
      'POST',
      PATH,
      form({ code: 'SEMTOKEN', percent_off: '10' }),
      { csrf: false },
    );
    expect(res.status).toBe(403);
    expect(await couponCount()).toBe(before);
  });

  it("answers 404 for another store's coupon by URL; another store's product code is unknown here", async () => {
    const shop = await api.createStore({ name: 'Outra Loja' });
    const foreign = (await api.as(shop.key).post('/coupons', { code: 'ALHEIO', percent_off: 50 })).body;
    const foreignProduct = (await api.as(shop.key).post('/products', { nome: 'Alheio', preco: 1 })).body;
    expect((await get('owner', `${PATH}/${foreign.id}`)).status).toBe(404);
    expect((await post('owner', `${PATH}/${foreign.id}`, form({ max_redemptions: '1' }))).status).toBe(404);
    expect((await post('owner', `${PATH}/${foreign.id}/arquivar`)).status).toBe(404);
    expect((await get('owner', `${PATH}/nao-e-um-id`)).status).toBe(404);
    expect((await api.as(shop.key).get(`/coupons/${foreign.id}`)).body).toMatchObject({
      active: true,
      max_redemptions: null,
    });
    const res = await post(
      'editor',
      PATH,
      form({ code: 'CRUZADO', percent_off: '10', product_codes: foreignProduct.codigo }),
    );
    expect(res.status).toBe(400);
    expect(fieldError(res.text, 'product_codes')).toBeTruthy();
  });

  it('escapes merchant strings (a product name) on the coupon page', async () => {
    const hostile = (await api.as(key).post('/products', { nome: '<script>alert(1)</script>', preco: 1 }))
      .body;
    const id = await create({ code: 'ESCAPE', percent_off: '10', product_codes: hostile.codigo });
    const page = await get('viewer', `${PATH}/${id}`);
    expect(page.text).not.toContain('<script>alert(1)');
    expect(page.text).toContain('&lt;script>alert(1)&lt;/script>');
  });
});
