import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hashSecretToken } from '../../src/domain/accounts/secret-token.js';
import { startSmtpServer } from '../support/smtp-server.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import { eventually } from '../webhooks/delivery-harness.js';

const SAME_ANSWER = 'Se houver uma conta com esse e-mail, enviamos um link';
const smtp = await startSmtpServer();
afterAll(() => smtp.close());

const forgot = (api: TestApi, email: string, from = '203.0.113.40') =>
  dashboardRequest(
    api.baseUrl,
    null,
    'POST',
    '/dashboard/login/esqueci',
    { email },
    { headers: { 'x-forwarded-for': from } },
  );
const login = (api: TestApi, email: string, password: string) =>
  dashboardRequest(api.baseUrl, null, 'POST', '/dashboard/login', { email, password });
const linkIn = (text: string) => /(http:\/\/[^\s]+\/dashboard\/login\/redefinir\/[\w-]{43})/.exec(text)?.[1];

describeEachDatabase(
  'Esqueci minha senha',
  (api) => {
    let storeId: string;
    beforeAll(async () => {
      ({ storeId } = await api.createStore({ name: 'Loja Reset' }));
    });
    const person = () =>
      addDashboardUser(api, storeId, 'owner', `reset-${randomBytes(6).toString('hex')}@loja.example`);

    it('the login page links to it; the same answer for any e-mail; a one-time link by e-mail sets a new password and ends every session', async () => {
      const page = await dashboardRequest(api.baseUrl, null, 'GET', '/dashboard/login');
      expect(page.text).toContain('href="/dashboard/login/esqueci"');
      expect(page.text).toContain('Esqueci minha senha');
      const form = await dashboardRequest(api.baseUrl, null, 'GET', '/dashboard/login/esqueci');
      expect(form.status).toBe(200);
      expect(form.text).toContain('Enviar link');

      const user = await person();
      const open = await dashboardLogin(api.baseUrl, user);
      const known = await forgot(api, user.email);
      const unknown = await forgot(api, `ninguem-${randomBytes(4).toString('hex')}@loja.example`);
      for (const res of [known, unknown]) {
        expect(res.status).toBe(200);
        expect(res.text).toContain(SAME_ANSWER);
      }
      // The same page, but for the script's fresh nonce.
      const unsalted = (text: string) => text.replace(/nonce="[^"]+"/g, 'nonce');
      expect(unsalted(known.text)).toBe(unsalted(unknown.text));

      const mail = await eventually(async () => smtp.messages.find((m) => m.to.includes(user.email)));
      expect(mail!.parsed.subject).toBe('Redefinir sua senha do painel');
      const url = linkIn(mail!.parsed.text!)!;
      expect(url).toBeTruthy();
      // Only the token's SHA-256 is stored.
      const token = url.split('/').pop()!;
      const rows = await api.db
        .selectFrom('password_resets')
        .selectAll()
        .where('user_id', '=', user.id)
        .execute();
      expect(rows.map((r) => r.token_hash)).toEqual([hashSecretToken(token)]);
      expect(Date.parse(rows[0]!.expires_at) - Date.parse(rows[0]!.created_at)).toBe(3600_000);

      const path = new URL(url).pathname;
      const resetPage = await dashboardRequest(api.baseUrl, null, 'GET', path);
      expect(resetPage.status).toBe(200);
      expect(resetPage.text).toContain('Nova senha');
      const short = await dashboardRequest(api.baseUrl, null, 'POST', path, {
        password: '123456789',
        confirmation: '123456789',
      });
      expect(short.status).toBe(400);
      expect(short.text).toContain('de 10 a 200 caracteres');
      const fresh = 'uma-senha-nova-depois-do-reset';
      const done = await dashboardRequest(api.baseUrl, null, 'POST', path, {
        password: fresh,
        confirmation: fresh,
      });
      expect(done.status).toBe(303);
      expect(done.headers.get('location')).toBe('/dashboard/login?senha=redefinida');
      // The open session ended; the old password is refused, the new one signs in.
      expect((await dashboardRequest(api.baseUrl, open, 'GET', '/dashboard')).status).toBe(303);
      expect((await login(api, user.email, user.password)).status).toBe(401);
      expect((await login(api, user.email, fresh)).status).toBe(303);
      // Once only.
      expect((await dashboardRequest(api.baseUrl, null, 'GET', path)).status).toBe(404);
      const audit = await api.db
        .selectFrom('audit_log')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('action', '=', 'password_reset')
        .execute();
      expect(audit).toContainEqual(
        expect.objectContaining({ user_id: user.id, detail: user.email, ip: '127.0.0.1' }),
      );
    });

    it('an expired link is refused', async () => {
      const user = await person();
      await forgot(api, user.email, '203.0.113.41');
      const mail = await eventually(async () => smtp.messages.find((m) => m.to.includes(user.email)));
      const path = new URL(linkIn(mail!.parsed.text!)!).pathname;
      await api.db
        .updateTable('password_resets')
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where('user_id', '=', user.id)
        .execute();
      const res = await dashboardRequest(api.baseUrl, null, 'POST', path, {
        password: 'senha-que-nao-entra',
        confirmation: 'senha-que-nao-entra',
      });
      expect(res.status).toBe(404);
      expect((await login(api, user.email, user.password)).status).toBe(303);
    });

    it('an invited person without a password gets no link (their invite sets it)', async () => {
      const email = `pendente-${randomBytes(4).toString('hex')}@loja.example`;
      const invited = await dashboardRequest(
        api.baseUrl,
        await dashboardLogin(api.baseUrl, await person()),
        'POST',
        '/dashboard/configuracoes/equipe/convidar',
        { email, role: 'viewer' },
      );
      expect(invited.status).toBe(200);
      const res = await forgot(api, email, '203.0.113.42');
      expect(res.text).toContain(SAME_ANSWER);
      const user = await api.db
        .selectFrom('users')
        .select('id')
        .where('email_key', '=', email)
        .executeTakeFirstOrThrow();
      expect(
        await api.db.selectFrom('password_resets').selectAll().where('user_id', '=', user.id).execute(),
      ).toEqual([]);
    });

    it('throttled per e-mail and per IP, with the same answer for a known and an unknown e-mail', async () => {
      const user = await person();
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await forgot(api, user.email, `198.51.100.${60 + i}`)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const ipStatuses: number[] = [];
      for (let i = 0; i < 11; i++)
        ipStatuses.push(
          (await forgot(api, `ip-${i}-${randomBytes(3).toString('hex')}@loja.example`, '198.51.100.99'))
            .status,
        );
      expect(ipStatuses.slice(0, 10).every((s) => s === 200)).toBe(true);
      const held = await forgot(api, `outra-${randomBytes(3).toString('hex')}@loja.example`, '198.51.100.99');
      expect(held.status).toBe(429);
      expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
    });
  },
  {
    config: { smtp: smtp.settings('Loja <painel@loja.example>'), trustProxy: ['127.0.0.1'] },
    mailerTls: { ca: smtp.ca },
  },
);
