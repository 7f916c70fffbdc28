import { beforeAll, describe, expect, it } from 'vitest';
import { matchTotp, totpCode, totpStep } from '../../src/domain/accounts/totp.js';
import { hashSecretToken } from '../../src/domain/accounts/secret-token.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import {
  addDashboardUser,
  csrfOf,
  dashboardLogin,
  dashboardRequest,
  sessionCookieOf,
} from '../support/dashboard.js';
import type { DashboardSession, DashboardUser } from '../support/dashboard.js';

const WRONG_PAIR = 'E-mail ou senha incorretos.';

function login(api: TestApi, email: string, password: string, headers: Record<string, string> = {}) {
  return dashboardRequest(api.baseUrl, null, 'POST', '/dashboard/login', { email, password }, { headers });
}

async function sessionRows(api: TestApi, userId: string) {
  return api.db.selectFrom('dashboard_sessions').selectAll().where('user_id', '=', userId).execute();
}

const auditOf = (api: TestApi, storeId: string) =>
  api.db.selectFrom('audit_log').selectAll().where('store_id', '=', storeId).orderBy('created_at').execute();

describe('TOTP (RFC 6238 appendix B, SHA-1, last 6 digits)', () => {
  // The RFC's seed "12345678901234567890" in base32.
  const SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
  it.each([
    [59, '287082'],
    [1111111109, '081804'],
    [1111111111, '050471'],
    [1234567890, '005924'],
    [2000000000, '279037'],
    [20000000000, '353130'],
  ])('at %i s the code is %s', (seconds, code) => {
    expect(totpCode(SECRET, totpStep(seconds * 1000))).toBe(code);
  });

  it('accepts the step before and after, not two away, and a step once', () => {
    const now = 1_700_000_000_000;
    const step = totpStep(now);
    expect(matchTotp(SECRET, totpCode(SECRET, step - 1), null, now)).toBe(step - 1);
    expect(matchTotp(SECRET, totpCode(SECRET, step + 1), null, now)).toBe(step + 1);
    expect(matchTotp(SECRET, totpCode(SECRET, step - 2), null, now)).toBeNull();
    expect(matchTotp(SECRET, totpCode(SECRET, step), step, now)).toBeNull();
    expect(matchTotp(SECRET, 'abcdef', null, now)).toBeNull();
  });
});

describeEachDatabase('dashboard login', (api) => {
  let storeId: string;
  let owner: DashboardUser;
  beforeAll(async () => {
    ({ storeId } = await api.createStore({ name: 'Loja Login' }));
    owner = await addDashboardUser(api, storeId, 'owner');
  });

  it('signs in with the right pair: a session stored only hashed, the cookie flags, an audit entry', async () => {
    const page = await dashboardRequest(api.baseUrl, null, 'GET', '/dashboard/login');
    expect(page.status).toBe(200);
    expect(page.text).toContain('E-mail');

    // The e-mail in another case is the same person.
    const res = await login(api, owner.email.toUpperCase(), owner.password);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/dashboard');
    const setCookie = res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^sf_session=[\w-]{43}; /);
    expect(setCookie).toContain('Path=/dashboard');
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
    expect(setCookie).not.toContain('Secure'); // http:// public URL
    const token = sessionCookieOf(res).slice('sf_session='.length);
    const rows = await sessionRows(api, owner.id);
    expect(rows.map((r) => r.id_hash)).toContain(hashSecretToken(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    const entries = await auditOf(api, storeId);
    expect(entries.at(-1)).toMatchObject({ action: 'login', user_id: owner.id, ip: '127.0.0.1' });
  });

  it('a wrong password and an unknown e-mail get the same answer', async () => {
    const before = (await auditOf(api, storeId)).length;
    const wrong = await login(api, owner.email, 'not-the-password');
    const unknown = await login(api, 'nobody@loja.example', 'not-the-password');
    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.text).toContain(WRONG_PAIR);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    // Same page but for the e-mail typed back into the field (and the script's fresh nonce).
    const page = (text: string, email: string) => text.replace(email, 'X').replace(/nonce="[^"]+"/g, 'nonce');
    expect(page(wrong.text, owner.email)).toBe(page(unknown.text, 'nobody@loja.example'));
    const entries = (await auditOf(api, storeId)).slice(before);
    expect(entries).toEqual([
      expect.objectContaining({ action: 'login_failed', user_id: null, detail: owner.email }),
    ]);
  });

  it('a person invited but without a password cannot sign in with any password', async () => {
    const res = await login(api, 'pending@loja.example', '');
    expect(res.status).toBe(401);
    expect(res.text).toContain(WRONG_PAIR);
  });

  it('throttles an (IP, e-mail) pair after 5 failures, even with the right password; other e-mails are not held', async () => {
    const victim = await addDashboardUser(api, storeId, 'viewer');
    const other = await addDashboardUser(api, storeId, 'viewer');
    const ip = { 'x-test': '1' }; // every request comes from 127.0.0.1
    for (let i = 0; i < 5; i++) expect((await login(api, victim.email, `wrong-${i}`, ip)).status).toBe(401);
    const held = await login(api, victim.email, victim.password);
    expect(held.status).toBe(429);
    const retryAfter = Number(held.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(800);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(held.headers.get('set-cookie')).toBeNull();
    expect(held.text).toContain('Muitas tentativas');
    // The same e-mail in another case is the same pair.
    expect((await login(api, victim.email.toUpperCase(), victim.password)).status).toBe(429);
    // Another e-mail from the same IP signs in.
    expect((await login(api, other.email, other.password)).status).toBe(303);
  });

  it('four failures then the right password signs in (the boundary)', async () => {
    const user = await addDashboardUser(api, storeId, 'viewer');
    for (let i = 0; i < 4; i++) expect((await login(api, user.email, `wrong-${i}`)).status).toBe(401);
    expect((await login(api, user.email, user.password)).status).toBe(303);
  });

  it('a new session id at every login; logout ends the session and clears the cookie', async () => {
    const first = await dashboardLogin(api.baseUrl, owner);
    // Logging in again from a browser that has a session replaces it with a new id.
    const again = await dashboardRequest(api.baseUrl, first, 'POST', '/dashboard/login', {
      email: owner.email,
      password: owner.password,
    });
    const second = sessionCookieOf(again);
    expect(second).not.toBe(first.cookie);
    expect((await dashboardRequest(api.baseUrl, first, 'GET', '/dashboard')).status).toBe(303);
    const session: DashboardSession = {
      cookie: second,
      csrf: csrfOf(
        (await dashboardRequest(api.baseUrl, { cookie: second, csrf: '' }, 'GET', '/dashboard')).text,
      ),
    };
    const out = await dashboardRequest(api.baseUrl, session, 'POST', '/dashboard/logout');
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/dashboard/login');
    expect(out.headers.get('set-cookie')).toMatch(/^sf_session=; Path=\/dashboard; Max-Age=0/);
    expect((await auditOf(api, storeId)).at(-1)).toMatchObject({ action: 'logout', user_id: owner.id });
    const after = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard');
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/dashboard/login');
    const token = second.slice('sf_session='.length);
    expect((await sessionRows(api, owner.id)).map((r) => r.id_hash)).not.toContain(hashSecretToken(token));
  });

  it('a session ends after 12 hours without a request and 7 days after login', async () => {
    const idle = await dashboardLogin(api.baseUrl, owner);
    const absolute = await dashboardLogin(api.baseUrl, owner);
    const hashOf = (s: DashboardSession) => hashSecretToken(s.cookie.slice('sf_session='.length));
    const hours = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();
    await api.db
      .updateTable('dashboard_sessions')
      .set({ last_seen_at: hours(12.01) })
      .where('id_hash', '=', hashOf(idle))
      .execute();
    await api.db
      .updateTable('dashboard_sessions')
      .set({ expires_at: hours(0.001) })
      .where('id_hash', '=', hashOf(absolute))
      .execute();
    for (const session of [idle, absolute]) {
      expect((await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard')).status).toBe(303);
    }
    // Just inside the idle limit still works.
    const fresh = await dashboardLogin(api.baseUrl, owner);
    await api.db
      .updateTable('dashboard_sessions')
      .set({ last_seen_at: hours(11.9) })
      .where('id_hash', '=', hashOf(fresh))
      .execute();
    expect((await dashboardRequest(api.baseUrl, fresh, 'GET', '/dashboard')).status).toBe(200);
  });

  it('a password change ends every other session of the person, keeps this one', async () => {
    const user = await addDashboardUser(api, storeId, 'viewer');
    const elsewhere = await dashboardLogin(api.baseUrl, user);
    const here = await dashboardLogin(api.baseUrl, user);
    const newPassword = 'uma-senha-nova-e-longa';
    const res = await dashboardRequest(api.baseUrl, here, 'POST', '/dashboard/configuracoes/conta/senha', {
      current: user.password,
      password: newPassword,
      confirmation: newPassword,
    });
    expect(res.status).toBe(303);
    expect((await dashboardRequest(api.baseUrl, here, 'GET', '/dashboard')).status).toBe(200);
    expect((await dashboardRequest(api.baseUrl, elsewhere, 'GET', '/dashboard')).status).toBe(303);
    expect((await sessionRows(api, user.id)).length).toBe(1);
    expect((await login(api, user.email, user.password)).status).toBe(401);
    expect((await login(api, user.email, newPassword)).status).toBe(303);
  });

  it('refuses a password change with a wrong current password or a short new one, changing nothing', async () => {
    const user = await addDashboardUser(api, storeId, 'viewer');
    const session = await dashboardLogin(api.baseUrl, user);
    const hash = async () =>
      (
        await api.db
          .selectFrom('users')
          .select('password_hash')
          .where('id', '=', user.id)
          .executeTakeFirstOrThrow()
      ).password_hash;
    const before = await hash();
    const wrong = await dashboardRequest(
      api.baseUrl,
      session,
      'POST',
      '/dashboard/configuracoes/conta/senha',
      {
        current: 'not-it',
        password: 'nova-senha-longa',
        confirmation: 'nova-senha-longa',
      },
    );
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Senha atual incorreta.');
    // 9 characters: one short of the minimum.
    const short = await dashboardRequest(
      api.baseUrl,
      session,
      'POST',
      '/dashboard/configuracoes/conta/senha',
      {
        current: user.password,
        password: '123456789',
        confirmation: '123456789',
      },
    );
    expect(short.status).toBe(400);
    expect(short.text).toContain('de 10 a 200 caracteres');
    expect(await hash()).toBe(before);
    // 10 characters: the minimum passes.
    const ok = await dashboardRequest(api.baseUrl, session, 'POST', '/dashboard/configuracoes/conta/senha', {
      current: user.password,
      password: '1234567890',
      confirmation: '1234567890',
    });
    expect(ok.status).toBe(303);
  });

  it('two-step verification: set up in Minha conta, then the login asks for "Código"', async () => {
    const user = await addDashboardUser(api, storeId, 'editor');
    const session = await dashboardLogin(api.baseUrl, user);
    const setup = await dashboardRequest(
      api.baseUrl,
      session,
      'POST',
      '/dashboard/configuracoes/conta/duas-etapas/configurar',
    );
    expect(setup.status).toBe(200);
    const secret = /Chave: <code class="secret">([A-Z2-7]{32})<\/code>/.exec(setup.text)![1]!;
    expect(setup.text).toContain(
      `otpauth://totp/Storefront%3A${encodeURIComponent(user.email)}?secret=${secret}`,
    );
    const sealed = /name="setup" value="([^"]+)"/.exec(setup.text)![1]!;
    const wrongCode = await dashboardRequest(
      api.baseUrl,
      session,
      'POST',
      '/dashboard/configuracoes/conta/duas-etapas/ativar',
      {
        setup: sealed,
        code: String((Number(totpCode(secret, totpStep())) + 1) % 1_000_000).padStart(6, '0'),
        password: user.password,
      },
    );
    expect(wrongCode.status).toBe(400);
    const on = await dashboardRequest(
      api.baseUrl,
      session,
      'POST',
      '/dashboard/configuracoes/conta/duas-etapas/ativar',
      {
        setup: sealed,
        code: totpCode(secret, totpStep()),
        password: user.password,
      },
    );
    expect(on.status).toBe(303);
    const row = await api.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(row.totp_secret_sealed).not.toContain(secret);

    // The password alone now leads to the second step, not into the dashboard.
    const first = await login(api, user.email, user.password);
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/dashboard/login/verificar');
    const half: DashboardSession = { cookie: sessionCookieOf(first), csrf: '' };
    expect((await dashboardRequest(api.baseUrl, half, 'GET', '/dashboard')).status).toBe(303);
    const step = await dashboardRequest(api.baseUrl, half, 'GET', '/dashboard/login/verificar');
    expect(step.text).toContain('Código');
    expect(step.text).toContain('Verificar');
    half.csrf = csrfOf(step.text);
    // The code used to turn it on is spent: its step cannot be replayed.
    const replay = await dashboardRequest(api.baseUrl, half, 'POST', '/dashboard/login/verificar', {
      code: totpCode(secret, row.totp_last_step!),
    });
    expect(replay.status).toBe(401);
    // The next step's code is accepted (within the drift window).
    const verified = await dashboardRequest(api.baseUrl, half, 'POST', '/dashboard/login/verificar', {
      code: totpCode(secret, row.totp_last_step! + 1),
    });
    expect(verified.status).toBe(303);
    expect(verified.headers.get('location')).toBe('/dashboard');
    const full: DashboardSession = { cookie: sessionCookieOf(verified), csrf: '' };
    expect(full.cookie).not.toBe(half.cookie);
    expect((await dashboardRequest(api.baseUrl, full, 'GET', '/dashboard')).status).toBe(200);
    expect((await dashboardRequest(api.baseUrl, half, 'GET', '/dashboard')).status).toBe(303);
    const actions = (await auditOf(api, storeId)).filter((e) => e.user_id === user.id).map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['totp_enabled', 'login']));
  });
});

describeEachDatabase(
  'dashboard cookie on an https public URL',
  (api) => {
    it('is Secure', async () => {
      const { storeId } = await api.createStore();
      const user = await addDashboardUser(api, storeId, 'viewer');
      const res = await login(api, user.email, user.password);
      expect(res.status).toBe(303);
      expect(res.headers.get('set-cookie')).toMatch(/; Secure$/);
    });
  },
  { config: { publicUrl: 'https://loja.example' } },
);
