import { beforeAll, expect, it } from 'vitest';
import { createSecretBox } from '../../src/platform/values/secret-box.js';
import { metaTokenAssociatedData } from '../../src/domain/stores/store-settings.js';
import { TEST_SECRET, describeEachDatabase, expectError } from '../support/test-api.js';

describeEachDatabase('the store resource', (api) => {
  let key: string;
  let storeId: string;
  beforeAll(async () => {
    ({ key, storeId } = await api.createStore({ name: 'Loja da Ana' }));
  });

  const storeRow = () =>
    api.db.selectFrom('stores').selectAll().where('id', '=', storeId).executeTakeFirstOrThrow();

  it('GET /store answers the key’s store with its defaults', async () => {
    const res = await api.as(key).get('/store');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'store',
      id: storeId,
      name: 'Loja da Ana',
      handle: 'loja-da-ana',
      checkout_mode: 'test',
      timezone: 'America/Sao_Paulo',
      recovery_email: {
        enabled: false,
        delay_minutes: 60,
        subject: expect.stringContaining('{{produto}}'),
        body: expect.stringContaining('{{link_pagamento}}'),
      },
      conversions: { meta: null },
      card: {
        max_installments: 12,
        interest_free_installments: 1,
        monthly_interest_rate: 2.99,
        min_installment_amount: 5,
      },
    });
  });

  it('PATCH changes only what is sent, and a live key sees the same store', async () => {
    const res = await api.as(key).patch('/store', {
      name: 'Loja da Ana & Cia',
      timezone: 'America/Manaus',
      recovery_email: { enabled: true, subject: 'Volte, {{nome}}' },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Loja da Ana & Cia',
      timezone: 'America/Manaus',
      recovery_email: { enabled: true, delay_minutes: 60, subject: 'Volte, {{nome}}' },
    });
    const live = await api.createKey(storeId, ['store:read'], 'live');
    expect((await api.as(live).get('/store')).body).toEqual(res.body);
    expect(await storeRow()).toMatchObject({
      name: 'Loja da Ana & Cia',
      timezone: 'America/Manaus',
      recovery_email_enabled: 1,
      recovery_email_subject: 'Volte, {{nome}}',
      recovery_email_body: null,
    });
    // null brings the default wording back.
    const reset = await api.as(key).patch('/store', { recovery_email: { subject: null } });
    expect(reset.body.recovery_email.subject).toContain('{{produto}}');
  });

  it('delay_minutes: 15 and 10080 pass, 14 and 10081 fail naming the field; nothing half-written', async () => {
    for (const delay of [15, 10_080]) {
      const res = await api.as(key).patch('/store', { recovery_email: { delay_minutes: delay } });
      expect(res.status, res.text).toBe(200);
      expect(res.body.recovery_email.delay_minutes).toBe(delay);
    }
    for (const delay of [14, 10_081, 60.5]) {
      const res = await api
        .as(key)
        .patch('/store', { name: 'Nunca', recovery_email: { delay_minutes: delay } });
      expectError(res, 400, 'invalid_request', 'recovery_email.delay_minutes');
    }
    expect((await storeRow()).recovery_email_delay_minutes).toBe(10_080);
    expect((await storeRow()).name).toBe('Loja da Ana & Cia');
  });

  it('refuses an unknown time zone, blank texts, over-long ones and unknown fields, naming them', async () => {
    expectError(
      await api.as(key).patch('/store', { timezone: 'America/Atlantis' }),
      400,
      'invalid_request',
      'timezone',
    );
    expectError(
      await api.as(key).patch('/store', { timezone: 'sao paulo' }),
      400,
      'invalid_request',
      'timezone',
    );
    expect((await api.as(key).patch('/store', { timezone: 'UTC' })).body.timezone).toBe('UTC');
    expectError(await api.as(key).patch('/store', { name: '   ' }), 400, 'invalid_request', 'name');
    expectError(
      await api.as(key).patch('/store', { recovery_email: { subject: 'x'.repeat(201) } }),
      400,
      'invalid_request',
      'recovery_email.subject',
    );
    expect((await api.as(key).patch('/store', { recovery_email: { subject: 'x'.repeat(200) } })).status).toBe(
      200,
    );
    expectError(
      await api.as(key).patch('/store', { recovery_email: { body: 'y'.repeat(10_001) } }),
      400,
      'invalid_request',
      'recovery_email.body',
    );
    expectError(
      await api.as(key).patch('/store', { checkout_mode: 'live' }),
      400,
      'invalid_request',
      'checkout_mode',
    );
    expectError(await api.as(key).patch('/store', { handle: 'outra' }), 400, 'invalid_request', 'handle');
  });

  it('Meta conversions: the access token is write-only and sealed; a first setting needs pixel and token', async () => {
    expectError(
      await api.as(key).patch('/store', { conversions: { meta: { pixel_id: '123456' } } }),
      400,
      'invalid_request',
      'conversions.meta.access_token',
    );
    expectError(
      await api.as(key).patch('/store', { conversions: { meta: { pixel_id: 'abc', access_token: 't' } } }),
      400,
      'invalid_request',
      'conversions.meta.pixel_id',
    );
    const token = 'EAAB-secret-token-value';
    const res = await api.as(key).patch('/store', {
      conversions: { meta: { pixel_id: '123456789012345', access_token: token, test_event_code: 'TEST123' } },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.conversions).toEqual({
      meta: {
        pixel_id: '123456789012345',
        access_token_set: true,
        test_event_code: 'TEST123',
        browser_pixel: false,
      },
    });
    expect(res.text).not.toContain(token);
    expect((await api.as(key).get('/store')).text).not.toContain(token);
    const sealed = (await storeRow()).meta_access_token_sealed!;
    expect(sealed).not.toContain(token);
    expect(createSecretBox(TEST_SECRET).open(sealed, metaTokenAssociatedData(storeId))).toBe(token);

    // Later changes keep the token unless a new one is sent.
    const later = await api
      .as(key)
      .patch('/store', { conversions: { meta: { browser_pixel: true, test_event_code: null } } });
    expect(later.body.conversions.meta).toEqual({
      pixel_id: '123456789012345',
      access_token_set: true,
      test_event_code: null,
      browser_pixel: true,
    });
    expect((await storeRow()).meta_access_token_sealed).toBe(sealed);

    const removed = await api.as(key).patch('/store', { conversions: { meta: null } });
    expect(removed.body.conversions).toEqual({ meta: null });
    expect((await storeRow()).meta_access_token_sealed).toBeNull();
  });

  it('scopes: store:read reads, store:write writes, neither implies the other; keys see only their store', async () => {
    const reader = await api.createKey(storeId, ['store:read']);
    const writer = await api.createKey(storeId, ['store:write']);
    expect((await api.as(reader).get('/store')).status).toBe(200);
    expectError(await api.as(reader).patch('/store', { name: 'X' }), 403, 'insufficient_scope');
    expectError(await api.as(writer).get('/store'), 403, 'insufficient_scope');
    expect((await api.as(writer).patch('/store', { name: 'Loja B' })).body.name).toBe('Loja B');
    expectError(await api.request('GET', '/store'), 401, 'unauthorized');

    const other = await api.createStore({ name: 'Outra loja' });
    await api.as(other.key).patch('/store', { name: 'Outra loja 2', recovery_email: { enabled: true } });
    expect((await api.as(key).get('/store')).body).toMatchObject({ id: storeId, name: 'Loja B' });
    expect((await api.as(other.key).get('/store')).body).toMatchObject({
      id: other.storeId,
      name: 'Outra loja 2',
    });
  });
});
