import { beforeAll, expect, it } from 'vitest';
import { addMember } from '../../src/domain/accounts/team.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession, DashboardUser } from '../support/dashboard.js';

const HOSTILE = `<script>alert("x")</script> & 'Loja' "<img src=x onerror=alert(1)>"`;

const pixKeyOf = async (api: TestApi, storeId: string) =>
  (await api.db.selectFrom('stores').select('pix_key').where('id', '=', storeId).executeTakeFirstOrThrow())
    .pix_key;

const membersOf = async (api: TestApi, storeId: string) =>
  (await api.db.selectFrom('memberships').select('user_id').where('store_id', '=', storeId).execute()).length;

describeEachDatabase('dashboard guard: CSRF, origin, roles, stores', (api) => {
  let storeA: string;
  let storeB: string;
  let owner: DashboardUser;
  let editor: DashboardUser;
  let viewer: DashboardUser;
  let ownerB: DashboardUser;
  let as: Record<'owner' | 'editor' | 'viewer' | 'ownerB', DashboardSession>;

  beforeAll(async () => {
    ({ storeId: storeA } = await api.createStore({ name: HOSTILE }));
    ({ storeId: storeB } = await api.createStore({ name: 'Loja B' }));
    [owner, editor, viewer, ownerB] = await Promise.all([
      addDashboardUser(api, storeA, 'owner'),
      addDashboardUser(api, storeA, 'editor'),
      addDashboardUser(api, storeA, 'viewer'),
      addDashboardUser(api, storeB, 'owner'),
    ]);
    as = {
      owner: await dashboardLogin(api.baseUrl, owner),
      editor: await dashboardLogin(api.baseUrl, editor),
      viewer: await dashboardLogin(api.baseUrl, viewer),
      ownerB: await dashboardLogin(api.baseUrl, ownerB),
    };
  });

  const setPix = (session: DashboardSession, key: string, options = {}) =>
    dashboardRequest(api.baseUrl, session, 'POST', '/dashboard/configuracoes/pix', { pix_key: key }, options);

  it('a POST without the CSRF token, or with another session’s, answers 403 and changes nothing', async () => {
    const missing = await setPix(as.owner, 'pix@loja.example', { csrf: false });
    expect(missing.status).toBe(403);
    expect(missing.text).toContain('Formulário expirado');
    const foreign = await dashboardRequest(
      api.baseUrl,
      as.owner,
      'POST',
      '/dashboard/configuracoes/pix',
      { pix_key: 'pix@loja.example', _csrf: as.viewer.csrf },
      { csrf: false },
    );
    expect(foreign.status).toBe(403);
    expect(await pixKeyOf(api, storeA)).toBeNull();
    // The header carries it as well as the field.
    const header = await setPix(as.owner, 'pix@loja.example', {
      csrf: false,
      headers: { 'x-csrf-token': as.owner.csrf },
    });
    expect(header.status).toBe(303);
    expect(await pixKeyOf(api, storeA)).toBe('pix@loja.example');
  });

  it('a POST from another origin, or with no Origin, answers 403 and changes nothing', async () => {
    const other = await setPix(as.owner, 'other@loja.example', {
      headers: { origin: 'https://evil.example' },
    });
    expect(other.status).toBe(403);
    expect(other.text).toContain('outra origem');
    const response = await fetch(`${api.baseUrl}/dashboard/configuracoes/pix`, {
      method: 'POST',
      headers: { cookie: as.owner.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ pix_key: 'other@loja.example', _csrf: as.owner.csrf }).toString(),
      redirect: 'manual',
    });
    expect(response.status).toBe(403);
    // Login from another origin is refused too (login CSRF).
    const login = await dashboardRequest(
      api.baseUrl,
      null,
      'POST',
      '/dashboard/login',
      { email: owner.email, password: owner.password },
      { headers: { origin: 'https://evil.example' } },
    );
    expect(login.status).toBe(403);
    expect(login.headers.get('set-cookie')).toBeNull();
    expect(await pixKeyOf(api, storeA)).toBe('pix@loja.example');
  });

  it("a viewer's and an editor's owner-only POSTs answer 403 and change nothing", async () => {
    for (const session of [as.viewer, as.editor]) {
      expect((await setPix(session, 'x@loja.example')).status).toBe(403);
      const mode = await dashboardRequest(api.baseUrl, session, 'POST', '/dashboard/configuracoes/modo', {
        mode: 'live',
      });
      expect(mode.status).toBe(403);
      expect(mode.text).toContain('Seu papel nesta loja não permite esta ação.');
      const invite = await dashboardRequest(
        api.baseUrl,
        session,
        'POST',
        '/dashboard/configuracoes/equipe/convidar',
        {
          email: 'intruso@loja.example',
          role: 'owner',
        },
      );
      expect(invite.status).toBe(403);
      const remove = await dashboardRequest(
        api.baseUrl,
        session,
        'POST',
        '/dashboard/configuracoes/equipe/remover',
        {
          email: owner.email,
        },
      );
      expect(remove.status).toBe(403);
    }
    expect(await pixKeyOf(api, storeA)).toBe('pix@loja.example');
    expect(await membersOf(api, storeA)).toBe(3);
    const store = await api.db
      .selectFrom('stores')
      .selectAll()
      .where('id', '=', storeA)
      .executeTakeFirstOrThrow();
    expect(store.checkout_mode).toBe('test');
    // Non-owners see neither the team nor the audit log.
    const page = await dashboardRequest(api.baseUrl, as.viewer, 'GET', '/dashboard/configuracoes');
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Registro de atividades');
    expect(page.text).not.toContain('Convidar');
    expect(page.text).toContain('Minha conta');
  });

  it('signed out: a page sends to the login, a POST answers 403', async () => {
    const page = await dashboardRequest(api.baseUrl, null, 'GET', '/dashboard/configuracoes');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/dashboard/login');
    const post = await dashboardRequest(api.baseUrl, null, 'POST', '/dashboard/configuracoes/pix', {
      pix_key: 'y@loja.example',
    });
    expect(post.status).toBe(403);
    const bogus = await dashboardRequest(
      api.baseUrl,
      { cookie: 'sf_session=forged', csrf: 'x' },
      'GET',
      '/dashboard',
    );
    expect(bogus.status).toBe(303);
  });

  it("a member of store A cannot reach store B's things by URL or form", async () => {
    // Switching to a store one is not a member of.
    const switched = await dashboardRequest(api.baseUrl, as.owner, 'POST', '/dashboard/loja', {
      store_id: storeB,
    });
    expect(switched.status).toBe(404);
    const home = await dashboardRequest(api.baseUrl, as.owner, 'GET', '/dashboard');
    expect(home.text).not.toContain('Loja B');
    // Removing B's owner from A's team page finds nobody.
    const remove = await dashboardRequest(
      api.baseUrl,
      as.owner,
      'POST',
      '/dashboard/configuracoes/equipe/remover',
      {
        email: ownerB.email,
      },
    );
    expect(remove.status).toBe(404);
    expect(await membersOf(api, storeB)).toBe(1);
    // B's audit log holds B's logins only; A's owner sees none of B.
    const settingsA = await dashboardRequest(api.baseUrl, as.owner, 'GET', '/dashboard/configuracoes');
    expect(settingsA.text).not.toContain(ownerB.email);
    const settingsB = await dashboardRequest(api.baseUrl, as.ownerB, 'GET', '/dashboard/configuracoes');
    expect(settingsB.text).toContain(ownerB.email);
    expect(settingsB.text).not.toContain(owner.email);
  });

  it('a person of several stores picks one with the select "Loja"', async () => {
    const both = await addDashboardUser(api, storeA, 'viewer');
    await addMember(api.db, { storeId: storeB, email: both.email, role: 'owner' });
    const session = await dashboardLogin(api.baseUrl, both);
    const home = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard');
    expect(home.text).toContain('<label for="loja">Loja</label>');
    expect(home.text).toContain('Loja B');
    const moved = await dashboardRequest(api.baseUrl, session, 'POST', '/dashboard/loja', {
      store_id: storeB,
    });
    expect(moved.status).toBe(303);
    // In B the person is an owner: the owner-only section shows.
    const settings = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/configuracoes');
    expect(settings.text).toContain('Registro de atividades');
    expect(settings.text).toContain('value="Loja B"');
  });

  it("escapes the store's name everywhere it shows", async () => {
    for (const path of ['/dashboard', '/dashboard/configuracoes']) {
      const page = await dashboardRequest(api.baseUrl, as.owner, 'GET', path);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('<script>alert');
      expect(page.text).not.toContain('<img src=x');
    }
    const settings = await dashboardRequest(api.baseUrl, as.owner, 'GET', '/dashboard/configuracoes');
    expect(settings.text).toContain('&lt;script>alert(&quot;x&quot;)&lt;/script> &amp;');
  });

  it('every page carries a strict CSP with a fresh nonce, no framing, no caching', async () => {
    const nonces = new Set<string>();
    for (const [session, path] of [
      [null, '/dashboard/login'],
      [as.owner, '/dashboard'],
      [as.owner, '/dashboard/configuracoes'],
      [as.owner, '/dashboard/nao-existe'],
    ] as const) {
      const page = await dashboardRequest(api.baseUrl, session, 'GET', path);
      const csp = page.headers.get('content-security-policy')!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("form-action 'self'");
      expect(csp).toMatch(/script-src 'nonce-[\w+/=]+'/);
      expect(csp).not.toContain('unsafe-inline');
      nonces.add(/nonce-([\w+/=]+)/.exec(csp)![1]!);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      // Not no-referrer: a browser would then send `Origin: null` on the pages' form POSTs.
      expect(page.headers.get('referrer-policy')).toBe('same-origin');
      expect(page.headers.get('cache-control')).toBe('no-store');
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    }
    expect(nonces.size).toBe(4);
    const missing = await dashboardRequest(api.baseUrl, as.owner, 'GET', '/dashboard/nao-existe');
    expect(missing.status).toBe(404);
    expect(missing.text).toContain('Página não encontrada');
  });
});
