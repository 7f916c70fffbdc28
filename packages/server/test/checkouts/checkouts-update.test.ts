import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, expectError } from '../support/test-api.js';

describeEachDatabase('checkouts: PATCH and unarchive', (api) => {
  let key: string;
  let storeId: string;
  let defaultId: string;
  const updatedEvents = async (id: string) =>
    (
      await api.db
        .selectFrom('events')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('type', '=', 'checkout.updated')
        .execute()
    ).filter((e) => JSON.parse(e.payload).data.object.id === id);

  beforeAll(async () => {
    ({ key, storeId, defaultCheckoutId: defaultId } = await api.createStore());
  });

  it('changes the name and only the settings sent, keeps the rest, and records checkout.updated', async () => {
    const created = await api
      .as(key)
      .post('/checkouts', { name: 'Antes', settings_json: { checkout_titulo: 'T' } });
    const res = await api.as(key).patch(`/checkouts/${created.body.id}`, {
      name: 'Depois',
      settings_json: { checkout_banner_enabled: true, checkout_banner_url: 'https://cdn.example/b.png' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Depois',
      banner_url: 'https://cdn.example/b.png',
      settings_json: {
        checkout_titulo: 'T',
        checkout_banner_enabled: true,
        checkout_garantia: 'Garantia de 7 dias',
      },
    });
    expect(res.body.updated_at >= created.body.updated_at).toBe(true);
    expect((await api.as(key).get(`/checkouts/${created.body.id}`)).body).toEqual(res.body);
    const events = await updatedEvents(created.body.id);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.payload).data.object).toEqual(res.body);
  });

  it('edits the default checkout too, which new checkouts then inherit', async () => {
    const res = await api
      .as(key)
      .patch(`/checkouts/${defaultId}`, { settings_json: { checkout_cupom_enabled: true } });
    expect(res.status).toBe(200);
    expect(res.body.settings_json.checkout_cupom_enabled).toBe(true);
    const child = await api.as(key).post('/checkouts', { name: 'Filho' });
    expect(child.body.settings_json.checkout_cupom_enabled).toBe(true);
  });

  it('applies the creation rules: unknown keys, bad colours, bad URLs and names are 400 with nothing written', async () => {
    const created = await api.as(key).post('/checkouts', { name: 'Regras' });
    const id = created.body.id;
    const cases: [unknown, string][] = [
      [{ settings_json: { checkout_cor_botao: '#fff' } }, 'settings_json.checkout_cor_botao'],
      [{ settings_json: { checkout_fundo_cor: 'red' } }, 'settings_json.checkout_fundo_cor'],
      [{ settings_json: { checkout_logo_url: 'javascript:alert(1)' } }, 'settings_json.checkout_logo_url'],
      [{ settings_json: { checkout_titulo: 'x'.repeat(121) } }, 'settings_json.checkout_titulo'],
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(121) }, 'name'],
      [{ is_default: true }, 'is_default'],
    ];
    for (const [body, param] of cases)
      expectError(await api.as(key).patch(`/checkouts/${id}`, body), 400, 'invalid_request', param);
    expect((await api.as(key).patch(`/checkouts/${id}`, { name: 'x'.repeat(120) })).status).toBe(200);
    expect((await api.as(key).get(`/checkouts/${id}`)).body.settings_json).toEqual(
      created.body.settings_json,
    );
  });

  it('unarchives idempotently with one checkout.updated, and the checkout can be given to a product again', async () => {
    const created = await api.as(key).post('/checkouts', { name: 'Volta' });
    const id = created.body.id;
    await api.as(key).post(`/checkouts/${id}/archive`);
    expectError(
      await api.as(key).post('/products', { nome: 'P', preco: 1, checkout_id: id }),
      400,
      'invalid_request',
      'checkout_id',
    );
    const first = await api.as(key).post(`/checkouts/${id}/unarchive`);
    expect(first.status).toBe(200);
    expect(first.body.archived).toBe(false);
    const second = await api.as(key).post(`/checkouts/${id}/unarchive`);
    expect(second.body.archived).toBe(false);
    expect(await updatedEvents(id)).toHaveLength(1);
    expect((await api.as(key).post('/products', { nome: 'P', preco: 1, checkout_id: id })).status).toBe(201);
  });

  it("another store's checkout and malformed ids are 404; scope checkouts:write is required", async () => {
    const other = await api.createStore({ name: 'Outra' });
    const theirs = await api.as(other.key).post('/checkouts', { name: 'Deles' });
    expectError(await api.as(key).patch(`/checkouts/${theirs.body.id}`, { name: 'Meu' }), 404, 'not_found');
    expectError(await api.as(key).post(`/checkouts/${theirs.body.id}/unarchive`), 404, 'not_found');
    expectError(await api.as(key).patch('/checkouts/nope', { name: 'x' }), 404, 'not_found');
    expect((await api.as(other.key).get(`/checkouts/${theirs.body.id}`)).body.name).toBe('Deles');
    const readOnly = await api.createKey(storeId, ['checkouts:read']);
    expectError(
      await api.as(readOnly).patch(`/checkouts/${defaultId}`, { name: '' }),
      403,
      'insufficient_scope',
    );
    expectError(await api.as(readOnly).post(`/checkouts/${defaultId}/unarchive`), 403, 'insufficient_scope');
  });
});
