import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_CHECKOUT_SETTINGS } from '../../src/domain/checkouts/settings.js';
import { describeEachDatabase, expectError } from '../support/test-api.js';

const CHECKOUT_KEYS = [
  'archived',
  'banner_url',
  'created_at',
  'id',
  'is_default',
  'name',
  'object',
  'settings_json',
  'updated_at',
].sort();
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describeEachDatabase('checkouts', (api) => {
  let key: string;
  let storeId: string;
  let defaultId: string;
  const eventsOf = (type: string) =>
    api.db
      .selectFrom('events')
      .selectAll()
      .where('store_id', '=', storeId)
      .where('type', '=', type)
      .execute();

  beforeAll(async () => {
    ({ key, storeId, defaultCheckoutId: defaultId } = await api.createStore());
  });

  it('a new store has exactly one default checkout with the documented look', async () => {
    const res = await api.as(key).get(`/checkouts/${defaultId}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(CHECKOUT_KEYS);
    expect(res.body).toMatchObject({
      object: 'checkout',
      is_default: true,
      archived: false,
      banner_url: null,
    });
    expect(res.body.settings_json).toEqual(DEFAULT_CHECKOUT_SETTINGS);
    expect(res.body.created_at).toMatch(ISO_MS);
    const defaults = await api.db
      .selectFrom('checkouts')
      .select('id')
      .where('store_id', '=', storeId)
      .where('is_default', '=', 1)
      .execute();
    expect(defaults).toHaveLength(1);
  });

  it('creates a checkout that inherits omitted settings from the default, and records checkout.created', async () => {
    const res = await api.as(key).post('/checkouts', {
      name: 'Black Friday',
      settings_json: {
        checkout_titulo: 'Oferta',
        checkout_fundo_cor: '#000',
        checkout_banner_url: 'https://cdn.example.com/b.png',
      },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(CHECKOUT_KEYS);
    expect(res.body).toMatchObject({ name: 'Black Friday', is_default: false, archived: false });
    expect(res.body.settings_json).toEqual({
      ...DEFAULT_CHECKOUT_SETTINGS,
      checkout_titulo: 'Oferta',
      checkout_fundo_cor: '#000',
      checkout_banner_url: 'https://cdn.example.com/b.png',
    });
    expect(res.body.banner_url).toBe('https://cdn.example.com/b.png');
    expect(res.body.updated_at).toBe(res.body.created_at);
    const events = await eventsOf('checkout.created');
    const event = events.find((e) => JSON.parse(e.payload).data.object.id === res.body.id);
    expect(event).toBeDefined();
    const payload = JSON.parse(event!.payload);
    expect(payload).toMatchObject({ object: 'event', type: 'checkout.created', livemode: false });
    expect(payload.id).toMatch(/^evt_/);
    expect(payload.data.object).toEqual(res.body);
  });

  it('inherits the default checkout as it is now, not as it was created', async () => {
    const custom = { ...DEFAULT_CHECKOUT_SETTINGS, checkout_garantia: 'Garantia de 30 dias' };
    await api.db
      .updateTable('checkouts')
      .set({ settings_json: JSON.stringify(custom) })
      .where('id', '=', defaultId)
      .execute();
    const res = await api.as(key).post('/checkouts', { name: 'Inherits' });
    expect(res.status).toBe(201);
    expect(res.body.settings_json.checkout_garantia).toBe('Garantia de 30 dias');
  });

  describe('name is 1-120 characters', () => {
    it('accepts 1 and 120 characters (an emoji counts as one)', async () => {
      expect((await api.as(key).post('/checkouts', { name: 'x' })).status).toBe(201);
      expect((await api.as(key).post('/checkouts', { name: 'n'.repeat(120) })).status).toBe(201);
      expect((await api.as(key).post('/checkouts', { name: '🛒'.repeat(120) })).status).toBe(201);
    });
    it('rejects 0 and 121 characters, a missing name and a non-string', async () => {
      expectError(await api.as(key).post('/checkouts', { name: '' }), 400, 'invalid_request', 'name');
      expectError(
        await api.as(key).post('/checkouts', { name: 'n'.repeat(121) }),
        400,
        'invalid_request',
        'name',
      );
      expectError(
        await api.as(key).post('/checkouts', { name: '🛒'.repeat(121) }),
        400,
        'invalid_request',
        'name',
      );
      expectError(await api.as(key).post('/checkouts', {}), 400, 'invalid_request', 'name');
      expectError(await api.as(key).post('/checkouts', { name: 'a\u0000' }), 400, 'invalid_request', 'name');
      expectError(await api.as(key).post('/checkouts', { name: '   ' }), 400, 'invalid_request', 'name');
      expectError(await api.as(key).post('/checkouts', { name: 5 }), 400, 'invalid_request', 'name');
    });
  });

  describe('settings_json accepts only the documented keys and types', () => {
    const bad: Array<[string, unknown]> = [
      ['checkout_unknown', true],
      ['checkout_logo_enabled', 'yes'],
      ['checkout_fundo_tipo', 'video'],
      ['checkout_fundo_cor', 'red'],
      ['checkout_fundo_cor', '#12345'],
      ['checkout_titulo', null],
      ['checkout_titulo', ''],
      ['checkout_logo_url', 'ftp://x'],
      ['checkout_selos_enabled', 1],
      // PostgreSQL text cannot hold U+0000; it is refused up front on both databases.
      ['checkout_descricao', 'a\u0000b'],
      ['checkout_logo_url', 'https://x/\u0000'],
    ];
    for (const [name, value] of bad) {
      it(`rejects ${name}=${JSON.stringify(value)} naming the param, and writes nothing`, async () => {
        const before = await api.db
          .selectFrom('checkouts')
          .select('id')
          .where('store_id', '=', storeId)
          .execute();
        const res = await api.as(key).post('/checkouts', { name: 'Bad', settings_json: { [name]: value } });
        expectError(res, 400, 'invalid_request', `settings_json.${name}`);
        const after = await api.db
          .selectFrom('checkouts')
          .select('id')
          .where('store_id', '=', storeId)
          .execute();
        expect(after).toHaveLength(before.length);
      });
    }
    it('accepts every fundo_tipo and both color forms', async () => {
      for (const [tipo, cor] of [
        ['cor', '#fff'],
        ['imagem', '#A1B2C3'],
        ['gradiente', null],
      ]) {
        const res = await api.as(key).post('/checkouts', {
          name: tipo,
          settings_json: { checkout_fundo_tipo: tipo, checkout_fundo_cor: cor },
        });
        expect(res.status).toBe(201);
        expect(res.body.settings_json).toMatchObject({ checkout_fundo_tipo: tipo, checkout_fundo_cor: cor });
      }
    });
    it('rejects settings_json that is not an object and unknown top-level fields', async () => {
      expectError(
        await api.as(key).post('/checkouts', { name: 'a', settings_json: [] }),
        400,
        'invalid_request',
        'settings_json',
      );
      expectError(
        await api.as(key).post('/checkouts', { name: 'a', color: 'x' }),
        400,
        'invalid_request',
        'color',
      );
    });
  });

  describe('archive', () => {
    it('archives a checkout, idempotently, with one checkout.archived event', async () => {
      const created = await api.as(key).post('/checkouts', { name: 'To archive' });
      const first = await api.as(key).post(`/checkouts/${created.body.id}/archive`);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ id: created.body.id, archived: true });
      const second = await api.as(key).post(`/checkouts/${created.body.id}/archive`);
      expect(second.status).toBe(200);
      expect(second.body.archived).toBe(true);
      const events = (await eventsOf('checkout.archived')).filter(
        (e) => JSON.parse(e.payload).data.object.id === created.body.id,
      );
      expect(events).toHaveLength(1);
      const row = await api.db
        .selectFrom('checkouts')
        .select('archived')
        .where('id', '=', created.body.id)
        .executeTakeFirst();
      expect(row?.archived).toBe(1);
    });

    it('refuses to archive the default checkout with 400 and leaves it as it was', async () => {
      expectError(await api.as(key).post(`/checkouts/${defaultId}/archive`), 400, 'invalid_request');
      const res = await api.as(key).get(`/checkouts/${defaultId}`);
      expect(res.body.archived).toBe(false);
    });
  });

  describe('store isolation and missing ids', () => {
    it("another store's checkout is 404 on get and archive, and stays untouched", async () => {
      const other = await api.createStore({ name: 'Other' });
      const theirs = await api.as(other.key).post('/checkouts', { name: 'Theirs' });
      expectError(await api.as(key).get(`/checkouts/${theirs.body.id}`), 404, 'not_found');
      expectError(await api.as(key).post(`/checkouts/${theirs.body.id}/archive`), 404, 'not_found');
      const list = await api.as(key).get('/checkouts?limit=100');
      expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(theirs.body.id);
      expect((await api.as(other.key).get(`/checkouts/${theirs.body.id}`)).body.archived).toBe(false);
    });
    it('a malformed or unknown id is 404', async () => {
      expectError(await api.as(key).get('/checkouts/not-a-uuid'), 404, 'not_found');
      expectError(await api.as(key).get('/checkouts/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
    });
  });

  describe('scopes', () => {
    it('read keys cannot write and write keys cannot read (scopes are flat)', async () => {
      const readOnly = await api.createKey(storeId, ['checkouts:read']);
      const writeOnly = await api.createKey(storeId, ['checkouts:write']);
      expect((await api.as(readOnly).get('/checkouts')).status).toBe(200);
      expectError(await api.as(readOnly).post('/checkouts', { name: 'x' }), 403, 'insufficient_scope');
      expectError(await api.as(writeOnly).get('/checkouts'), 403, 'insufficient_scope');
      expect((await api.as(writeOnly).post('/checkouts', { name: 'x' })).status).toBe(201);
    });
    it('checks scope before validation (403 beats 400)', async () => {
      const readOnly = await api.createKey(storeId, ['checkouts:read']);
      expectError(await api.as(readOnly).post('/checkouts', { name: '' }), 403, 'insufficient_scope');
    });
  });
});
