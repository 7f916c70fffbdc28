import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSmtpServer } from '../support/smtp-server.js';
import { eventually } from '../webhooks/delivery-harness.js';
import { auditOf } from '../support/store-records.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest, sessionCookieOf } from '../support/dashboard.js';
import type { DashboardSession, DashboardUser } from '../support/dashboard.js';

const smtp = await startSmtpServer();
afterAll(() => smtp.close());

const storeRow = (api: TestApi, id: string) =>
  api.db.selectFrom('stores').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describeEachDatabase(
  'dashboard Configurações',
  (api) => {
    let storeId: string;
    let owner: DashboardUser;
    let session: DashboardSession;
    const post = (path: string, form: Record<string, string> = {}) =>
      dashboardRequest(api.baseUrl, session, 'POST', `/dashboard/configuracoes${path}`, form);

    beforeAll(async () => {
      ({ storeId } = await api.createStore({ name: 'Loja Config' }));
      owner = await addDashboardUser(api, storeId, 'owner');
      session = await dashboardLogin(api.baseUrl, owner);
    });

    it('changes the name and handle through the store service; refuses a bad or taken handle', async () => {
      const other = await api.createStore({ name: 'Outra' });
      const otherHandle = (await storeRow(api, other.storeId)).handle;
      const refusals: [string, string, number, string][] = [
        ['Nome', 'ab', 400, 'de 3 a 40 caracteres'],
        ['Nome', 'a'.repeat(41), 400, 'de 3 a 40 caracteres'],
        ['Nome', 'Com Maiúscula', 400, 'letras minúsculas'],
        ['Nome', otherHandle, 409, 'já é usado por outra loja'],
        ['   ', 'valido', 400, 'O nome precisa'],
      ];
      for (const [name, handle, status, message] of refusals) {
        const res = await post('/loja', { name, handle });
        expect(res.status, handle).toBe(status);
        expect(res.text).toContain(message);
      }
      expect((await storeRow(api, storeId)).name).toBe('Loja Config');
      // 3 characters: the shortest handle passes.
      const ok = await post('/loja', { name: 'Loja Nova', handle: 'abc' });
      expect(ok.status).toBe(303);
      expect(ok.headers.get('location')).toBe('/dashboard/configuracoes?aviso=loja#loja');
      expect(await storeRow(api, storeId)).toMatchObject({ name: 'Loja Nova', handle: 'abc' });
      const page = await dashboardRequest(api.baseUrl, session, 'GET', ok.headers.get('location')!);
      expect(page.text).toContain('Dados da loja salvos.');
      expect(await auditOf(api, storeId)).toContain(
        'store_updated: nome: Loja Config → Loja Nova; identificador: loja-config → abc',
      );
    });

    it('sets the Pix key the way the CLI does (normalised), refuses a malformed one', async () => {
      const bad = await post('/pix', { pix_key: '123' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('Chave Pix inválida');
      expect((await storeRow(api, storeId)).pix_key).toBeNull();
      expect((await post('/pix', { pix_key: ' Loja@Example.COM ' })).status).toBe(303);
      expect((await storeRow(api, storeId)).pix_key).toBe('loja@example.com');
      expect(await auditOf(api, storeId)).toContain('pix_key_changed: — → loja@example.com');
    });

    it('keeps the checkout mode in Teste until the store has PSP settings', async () => {
      const live = await post('/modo', { mode: 'live' });
      expect(live.status).toBe(400);
      expect(live.text).toContain('configurações do PSP');
      expect((await storeRow(api, storeId)).checkout_mode).toBe('test');
      expect((await post('/modo', { mode: 'sandbox' })).status).toBe(400);
      expect((await post('/modo', { mode: 'test' })).status).toBe(303);
      // Nothing changed, so nothing to record.
      expect((await auditOf(api, storeId)).some((a) => a.startsWith('checkout_mode_changed'))).toBe(false);
    });

    it('invites with a role: the link is shown and e-mailed; its holder sets a password and is signed in', async () => {
      const email = `convidada-${api.dialect}@loja.example`;
      const res = await post('/equipe/convidar', { email, role: 'editor' });
      expect(res.status).toBe(200);
      const url = /name="invite_url" readonly value="([^"]+)"/.exec(res.text)?.[1];
      expect(url).toMatch(new RegExp(`^${api.config.publicUrl}/dashboard/convite/[\\w-]{22}$`));
      expect(res.text).toContain('O link também foi enviado por e-mail.');
      const mail = await eventually(async () => smtp.messages.find((m) => m.to.includes(email)));
      expect(mail!.parsed.subject).toBe('Convite para o painel da loja Loja Nova');
      expect(mail!.parsed.text).toContain(url);
      const member = await api.db
        .selectFrom('memberships')
        .innerJoin('users', 'users.id', 'memberships.user_id')
        .select(['memberships.role', 'users.password_hash'])
        .where('users.email_key', '=', email)
        .executeTakeFirstOrThrow();
      expect(member).toEqual({ role: 'editor', password_hash: null });

      const path = new URL(url!).pathname;
      const accept = await dashboardRequest(api.baseUrl, null, 'POST', path, {
        password: 'senha-da-convidada',
        confirmation: 'senha-da-convidada',
      });
      expect(accept.status).toBe(303);
      const invited: DashboardSession = { cookie: sessionCookieOf(accept), csrf: '' };
      const home = await dashboardRequest(api.baseUrl, invited, 'GET', '/dashboard');
      expect(home.status).toBe(200);
      expect(home.text).toContain(email);
      // Inviting the same person again is refused.
      const again = await post('/equipe/convidar', { email: email.toUpperCase(), role: 'viewer' });
      expect(again.status).toBe(409);
      expect(again.text).toContain('já faz parte da loja');
      expect(await auditOf(api, storeId)).toEqual(
        expect.arrayContaining([`member_invited: ${email} (Editor)`, `member_joined: ${email}`]),
      );
    });

    it('an existing account invited to another store keeps its password; it signs in to accept', async () => {
      const { storeId: otherStore } = await api.createStore({ name: 'Segunda' });
      const elsewhere = await addDashboardUser(api, otherStore, 'owner');
      const res = await post('/equipe/convidar', { email: elsewhere.email, role: 'viewer' });
      expect(res.status).toBe(200);
      expect(res.text).toContain('Convite enviado para');
      const url = /name="invite_url" readonly value="([^"]+)"/.exec(res.text)?.[1];
      const link = await dashboardRequest(api.baseUrl, null, 'GET', new URL(url!).pathname);
      expect(link.text).toContain('Esta conta já existe');
      expect(link.text).not.toContain('name="password"');
      expect((await dashboardLogin(api.baseUrl, elsewhere)).csrf).toBeTruthy();
    });

    it("removes a member (their sessions end) but never the store's last owner", async () => {
      const leaving = await addDashboardUser(api, storeId, 'viewer');
      const theirs = await dashboardLogin(api.baseUrl, leaving);
      const res = await post('/equipe/remover', { email: leaving.email });
      expect(res.status).toBe(303);
      expect((await dashboardRequest(api.baseUrl, theirs, 'GET', '/dashboard')).status).toBe(303);
      expect(await auditOf(api, storeId)).toContain(`member_removed: ${leaving.email} (Leitor)`);

      const last = await post('/equipe/remover', { email: owner.email });
      expect(last.status).toBe(409);
      expect(last.text).toContain('pelo menos um proprietário');
      expect((await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard')).status).toBe(200);
    });

    it('shows owners the audit log with who, what, when and IP, a page at a time', async () => {
      const page = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/configuracoes');
      expect(page.text).toContain('Registro de atividades');
      expect(page.text).toContain('Chave Pix alterada');
      expect(page.text).toContain('127.0.0.1');
      expect(page.text).toContain(owner.email);
      // 60 entries: the first page shows 50 and links to the rest.
      for (let i = 0; i < 60; i++) {
        await api.db
          .insertInto('audit_log')
          .values({
            id: `aud_test${String(i).padStart(3, '0')}`,
            store_id: storeId,
            user_id: owner.id,
            action: 'logout',
            detail: `entrada ${i}`,
            ip: '127.0.0.1',
            created_at: new Date(Date.UTC(2030, 0, 1, 0, i)).toISOString(),
          })
          .execute();
      }
      const first = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/configuracoes');
      expect(first.text).toContain('entrada 59');
      expect(first.text).toContain('entrada 10');
      expect(first.text).not.toContain('entrada 9<');
      const next = /href="(\/dashboard\/configuracoes\?antes=[^"]+)"/
        .exec(first.text)![1]!
        .replace(/&amp;/g, '&');
      const second = await dashboardRequest(api.baseUrl, session, 'GET', next);
      expect(second.text).toContain('entrada 9<');
      expect(second.text).not.toContain('entrada 10<');
    });
  },
  { config: { smtp: smtp.settings('Loja <painel@loja.example>') }, mailerTls: { ca: smtp.ca } },
);
