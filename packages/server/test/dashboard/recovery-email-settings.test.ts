import { beforeAll, expect, it } from 'vitest';
import {
  DEFAULT_RECOVERY_BODY,
  DEFAULT_RECOVERY_SUBJECT,
} from '../../src/domain/kernel/recovery-email-defaults.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession } from '../support/dashboard.js';

const PATH = '/dashboard/configuracoes/recuperacao';

const auditOf = async (api: TestApi, storeId: string) =>
  (
    await api.db
      .selectFrom('audit_log')
      .select(['action', 'detail'])
      .where('store_id', '=', storeId)
      .where('action', '=', 'recovery_email_changed')
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => row.detail);

/** A complete form as the page sends it. */
const form = (fields: Partial<Record<'enabled' | 'delay_minutes' | 'subject' | 'body', string>> = {}) => ({
  enabled: 'on',
  delay_minutes: '60',
  subject: 'Assunto',
  body: 'Texto',
  ...fields,
});

describeEachDatabase('dashboard Configurações: abandoned-order e-mail', (api) => {
  let storeId: string;
  let key: string;
  let owner: DashboardSession;

  const store = async () => (await api.as(key).get('/store')).body.recovery_email;
  const save = (fields: Record<string, string>, session = owner, options = {}) =>
    dashboardRequest(api.baseUrl, session, 'POST', PATH, fields, options);

  beforeAll(async () => {
    ({ storeId, key } = await api.createStore({ name: 'Loja Recuperação' }));
    owner = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'owner'));
  });

  it('shows the store’s settings, the defaults and the placeholders in the owner’s form', async () => {
    const page = await dashboardRequest(api.baseUrl, owner, 'GET', '/dashboard/configuracoes');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<h2 id="recuperacao-titulo">E-mail de pedido abandonado</h2>');
    expect(page.text).toMatch(
      /<input type="checkbox" id="recuperacao-ativado" name="enabled" value="on"\s*\/?>/,
    );
    expect(page.text).toContain('value="60"');
    expect(page.text).toContain('{{link_pagamento}}');
    expect(page.text).toMatch(/<textarea[^>]*id="recuperacao-texto"[^>]*>/);
    expect(page.text).toContain(`value="${DEFAULT_RECOVERY_SUBJECT}"`);
  });

  it('an owner saves it; GET /store sees it; the change is in the audit log', async () => {
    const body = 'Olá, {{nome}}!\r\n\r\nSeu Pix: {{link_pagamento}}\r\n<b>{{loja}}</b>';
    const res = await save(form({ delay_minutes: '120', subject: 'Volte, {{nome}}', body }));
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard/configuracoes?aviso=recuperacao#recuperacao');
    expect(await store()).toEqual({
      enabled: true,
      delay_minutes: 120,
      subject: 'Volte, {{nome}}',
      // Kept with the API's line breaks.
      body: 'Olá, {{nome}}!\n\nSeu Pix: {{link_pagamento}}\n<b>{{loja}}</b>',
    });
    expect(await auditOf(api, storeId)).toEqual([
      'ativado: não → sim; atraso: 60 → 120 min; assunto alterado; texto alterado',
    ]);
    const page = await dashboardRequest(
      api.baseUrl,
      owner,
      'GET',
      '/dashboard/configuracoes?aviso=recuperacao',
    );
    expect(page.text).toContain('E-mail de pedido abandonado salvo.');
    // The merchant's text is escaped inside the textarea.
    expect(page.text).toContain('&lt;b>{{loja}}&lt;/b>');
    expect(page.text).not.toContain('<b>{{loja}}</b>');

    // Unchecked: off. The default wording sent back is kept as "the default" (null in the row).
    const off = await save({
      delay_minutes: '120',
      subject: DEFAULT_RECOVERY_SUBJECT,
      body: DEFAULT_RECOVERY_BODY,
    });
    expect(off.status).toBe(303);
    expect(await store()).toEqual({
      enabled: false,
      delay_minutes: 120,
      subject: DEFAULT_RECOVERY_SUBJECT,
      body: DEFAULT_RECOVERY_BODY,
    });
    const row = await api.db
      .selectFrom('stores')
      .select(['recovery_email_subject', 'recovery_email_body'])
      .where('id', '=', storeId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ recovery_email_subject: null, recovery_email_body: null });
    // The same settings again change nothing and record nothing.
    await save({ delay_minutes: '120', subject: DEFAULT_RECOVERY_SUBJECT, body: DEFAULT_RECOVERY_BODY });
    expect(await auditOf(api, storeId)).toHaveLength(2);
  });

  it('the bounds are PATCH /store’s: 15..10080 minutes, 200 characters of subject, 10000 of text', async () => {
    for (const delay of ['15', '10080']) {
      expect((await save(form({ delay_minutes: delay }))).status, delay).toBe(303);
      expect((await store()).delay_minutes).toBe(Number(delay));
    }
    expect((await save(form({ subject: 's'.repeat(200), body: 'b'.repeat(10_000) }))).status).toBe(303);
    expect(await store()).toMatchObject({ subject: 's'.repeat(200), body: 'b'.repeat(10_000) });
    const before = await store();

    const refusals: [Record<string, string>, string][] = [
      [{ delay_minutes: '14' }, 'de 15 a 10080 minutos'],
      [{ delay_minutes: '10081' }, 'de 15 a 10080 minutos'],
      [{ delay_minutes: '1.5' }, 'de 15 a 10080 minutos'],
      [{ delay_minutes: 'uma hora' }, 'de 15 a 10080 minutos'],
      [{ subject: 's'.repeat(201) }, 'de 1 a 200 caracteres'],
      [{ subject: '   ' }, 'de 1 a 200 caracteres'],
      [{ body: 'b'.repeat(10_001) }, 'de 1 a 10.000 caracteres'],
      [{ body: ' \r\n ' }, 'de 1 a 10.000 caracteres'],
    ];
    for (const [fields, message] of refusals) {
      const res = await save(form(fields));
      expect(res.status, JSON.stringify(fields).slice(0, 60)).toBe(400);
      expect(res.text).toContain(message);
      // What was typed is shown back.
      if (fields.delay_minutes) expect(res.text).toContain(`value="${fields.delay_minutes}"`);
    }
    // The API refuses the same values.
    expect((await api.as(key).patch('/store', { recovery_email: { delay_minutes: 14 } })).status).toBe(400);
    expect((await api.as(key).patch('/store', { recovery_email: { subject: 's'.repeat(201) } })).status).toBe(
      400,
    );
    expect(await store()).toEqual(before);
  });

  it('editors and viewers get 403 and change nothing; they read the settings', async () => {
    const before = await store();
    for (const role of ['editor', 'viewer'] as const) {
      const session = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, role));
      const res = await save(form({ delay_minutes: '999', subject: 'Tomado' }), session);
      expect(res.status, role).toBe(403);
      const page = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/configuracoes');
      expect(page.text).toContain('E-mail de pedido abandonado');
      expect(page.text).not.toContain(`action="${PATH}`);
    }
    expect(await store()).toEqual(before);
  });

  it('a POST without the CSRF token or from another origin is refused', async () => {
    const before = await store();
    expect((await save(form({ delay_minutes: '999' }), owner, { csrf: false })).status).toBe(403);
    const foreign = await save(form({ delay_minutes: '999' }), owner, {
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.status).toBe(403);
    expect(await store()).toEqual(before);
  });
});
