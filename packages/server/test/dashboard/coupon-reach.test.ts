import { beforeAll, expect, it } from 'vitest';
import { memberPerRole } from '../support/dashboard.js';
import { auditOf, eventTypesOf } from '../support/store-records.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';

const PATH = '/dashboard/cupons';
const SHOW_FIELD = `${PATH}/mostrar-campo`;
const form = (fields: Record<string, string>) => ({
  code: '',
  percent_off: '10',
  amount_off: '',
  max_redemptions: '',
  expires_on: '',
  product_codes: '',
  ...fields,
});
/** The text of the "Onde o comprador digita o cupom" section, tags dropped. */
const reachOf = (html: string) =>
  (/<section[^>]*id="campo-de-cupom"[^>]*>([\s\S]*?)<\/section>/.exec(html)?.[1] ?? '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();

describeEachDatabase('dashboard Cupons: where buyers can type a coupon', (api: TestApi) => {
  let key: string;
  let storeId: string;
  let course: { id: string; codigo: string };
  let promo: { id: string; name: string };
  let defaultCheckout: { id: string; settings_json: { checkout_cupom_enabled: boolean } };
  const { get, post, signIn } = memberPerRole(api);

  beforeAll(async () => {
    ({ key, storeId } = await api.createStore({ name: 'Loja Alcance' }));
    await signIn(storeId);
    const checkouts = (await api.as(key).get('/checkouts')).body.data;
    defaultCheckout = checkouts.find((checkout: { is_default: boolean }) => checkout.is_default);
    promo = (await api.as(key).post('/checkouts', { name: 'Promo <b>', settings_json: {} })).body;
    course = (await api.as(key).post('/products', { nome: 'Curso', preco: 100 })).body;
    const ebook = (await api.as(key).post('/products', { nome: 'Ebook', preco: 20 })).body;
    await api.as(key).patch(`/products/${ebook.id}`, { checkout_id: promo.id });
    await api.as(key).post('/products', { nome: 'Clube', preco: 30, recorrencia: 'mensal' });
  });

  it('the default checkout hides the field: "Cupom criado." comes with the warning and a button to show it', async () => {
    expect(defaultCheckout.settings_json.checkout_cupom_enabled).toBe(false);
    const created = await post('editor', PATH, form({ code: 'CURSO10', product_codes: course.codigo }));
    expect(created.status, created.text).toBe(303);
    const page = await get('editor', created.headers.get('location')!);
    expect(page.text).toContain('Cupom criado.');
    expect(reachOf(page.text)).toContain(
      'Nenhum comprador vê o campo de cupom: o checkout Checkout padrão (1 produto) não mostra o campo.',
    );
    expect(page.text).toContain(`name="checkout_id" value="${defaultCheckout.id}"`);
    expect(page.text).toContain('Mostrar o campo de cupom no checkout Checkout padrão');
  });

  it('"Mostrar o campo" turns it on through the checkout service: checkout.updated, audited, back on the coupon', async () => {
    const location = (
      await post('editor', PATH, form({ code: 'CURSO15', product_codes: course.codigo }))
    ).headers.get('location')!;
    const couponId = /cupons\/(cpn_\w+)/.exec(location)![1]!;
    const res = await post('editor', SHOW_FIELD, { checkout_id: defaultCheckout.id, cupom: couponId });
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get('location')).toBe(`${PATH}/${couponId}?aviso=campo#campo-de-cupom`);

    const checkout = (await api.as(key).get(`/checkouts/${defaultCheckout.id}`)).body;
    expect(checkout.settings_json.checkout_cupom_enabled).toBe(true);
    expect(await eventTypesOf(api, storeId, defaultCheckout.id)).toContain('checkout.updated');
    expect(await auditOf(api, storeId, 'checkout_updated')).toContain(
      'checkout_updated: Checkout padrão; checkout_cupom_enabled',
    );
    const page = await get('viewer', `${PATH}/${couponId}?aviso=campo`);
    expect(page.text).toContain('O checkout passou a mostrar o campo de cupom.');
    expect(reachOf(page.text)).toContain(
      'O campo de cupom aparece nos checkouts Checkout padrão (1 produto).',
    );
    expect(reachOf(page.text)).not.toContain('não vê');

    // Once on, a second press changes nothing: no second event.
    const before = (await eventTypesOf(api, storeId, defaultCheckout.id)).length;
    expect((await post('editor', SHOW_FIELD, { checkout_id: defaultCheckout.id })).status).toBe(303);
    expect((await eventTypesOf(api, storeId, defaultCheckout.id)).length).toBe(before);
  });

  it('the list speaks of every product: a checkout that hides the field is named and escaped; subscriptions noted', async () => {
    const list = await get('viewer', PATH);
    const reach = reachOf(list.text);
    expect(reach).toContain('O campo de cupom aparece nos checkouts Checkout padrão (1 produto).');
    expect(reach).toContain(
      'Parte dos compradores não vê o campo de cupom: o checkout Promo &lt;b> (1 produto) não mostra o campo.',
    );
    expect(reach).toContain('1 produto com recorrência');
    // A viewer is shown where to look, not a button.
    expect(list.text).toContain(`href="/dashboard/checkouts/${promo.id}"`);
    expect(list.text).not.toContain(`name="checkout_id" value="${promo.id}"`);
    expect((await get('editor', PATH)).text).toContain(`name="checkout_id" value="${promo.id}"`);
  });

  it("refuses a viewer (403), another store's checkout (404), and changes nothing", async () => {
    const other = await api.createStore({ name: 'Outra' });
    const otherDefault = (await api.as(other.key).get('/checkouts')).body.data[0];
    expect((await post('viewer', SHOW_FIELD, { checkout_id: promo.id })).status).toBe(403);
    expect((await post('editor', SHOW_FIELD, { checkout_id: otherDefault.id })).status).toBe(404);
    expect((await post('editor', SHOW_FIELD, { checkout_id: 'nao-e-um-id' })).status).toBe(404);
    expect((await api.as(key).get(`/checkouts/${promo.id}`)).body.settings_json.checkout_cupom_enabled).toBe(
      false,
    );
    const otherAfter = (await api.as(other.key).get(`/checkouts/${otherDefault.id}`)).body;
    expect(otherAfter.settings_json.checkout_cupom_enabled).toBe(false);
  });
});
