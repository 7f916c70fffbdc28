import { beforeAll, expect, it } from 'vitest';
import { totpCode, totpStep } from '../../src/domain/accounts/totp.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession, DashboardUser } from '../support/dashboard.js';
import { describeEachDatabase } from '../support/test-api.js';

const LAST_OWNER = 'A loja precisa de pelo menos um proprietário.';

/** The ids of a page that appear more than once. */
function duplicateIds(html: string): string[] {
  const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]!);
  return [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
}

/** The controls of a page no `<label for>` names (hidden fields and ARIA-labelled ones aside). */
function unlabelled(html: string): string[] {
  const labelled = new Set([...html.matchAll(/<label[^>]*\sfor="([^"]+)"/g)].map((match) => match[1]!));
  return [...html.matchAll(/<(input|select|textarea)\b([^>]*)>/g)]
    .map((match) => match[2]!)
    .filter((attrs) => !/type="(hidden|radio|checkbox)"/.test(attrs) && !/aria-label=/.test(attrs))
    .map((attrs) => /\sid="([^"]+)"/.exec(attrs)?.[1] ?? attrs)
    .filter((id) => !labelled.has(id));
}

/** The text of the section `id` of a page, tags removed. */
function sectionText(html: string, id: string): string {
  const start = html.indexOf(`<section class="panel" aria-labelledby="${id}-titulo" id="${id}"`);
  if (start < 0) throw new Error(`no section ${id}`);
  return html.slice(start, html.indexOf('</section>', start)).replace(/<[^>]+>/g, ' ');
}

describeEachDatabase('Configurações: answers where the page opens, one id per element', (api) => {
  let owner: DashboardUser;
  let session: DashboardSession;
  const get = (path: string) => dashboardRequest(api.baseUrl, session, 'GET', path);
  const post = (path: string, form: Record<string, string> = {}) =>
    dashboardRequest(api.baseUrl, session, 'POST', `/dashboard/configuracoes${path}`, form);

  beforeAll(async () => {
    const { storeId } = await api.createStore({ name: 'Loja Avisos' });
    owner = await addDashboardUser(api, storeId, 'owner');
    session = await dashboardLogin(api.baseUrl, owner);
  });

  it('every form of a section comes back to it: its action carries the section as a fragment', async () => {
    const page = await get('/dashboard/configuracoes');
    const actions = [...page.text.matchAll(/<form method="post" action="([^"]+)"/g)].map((m) => m[1]!);
    for (const [path, section] of [
      ['/loja', 'loja'],
      ['/pix', 'pagamentos'],
      ['/modo', 'pagamentos'],
      ['/meta', 'meta'],
      ['/equipe/convidar', 'equipe'],
      ['/equipe/papel', 'equipe'],
      ['/conta/senha', 'minha-conta'],
      ['/conta/duas-etapas/configurar', 'minha-conta'],
    ]) {
      expect(actions, path).toContain(`/dashboard/configuracoes${path}#${section}`);
    }
  });

  it("a change's notice shows in its section, focusable; an inherited name is no notice", async () => {
    const saved = await post('/pix', { pix_key: 'loja@example.com' });
    expect(saved.headers.get('location')).toBe('/dashboard/configuracoes?aviso=pix#pagamentos');
    const page = await get(saved.headers.get('location')!);
    expect(sectionText(page.text, 'pagamentos')).toContain('Chave Pix salva.');
    expect(/role="status" tabindex="-1" data-answer="true">Chave Pix salva./.test(page.text)).toBe(true);

    for (const aviso of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const res = await get(`/dashboard/configuracoes?aviso=${aviso}`);
      expect(res.status, aviso).toBe(200);
      expect(res.text.includes('class="notice'), aviso).toBe(false);
    }
  });

  it('no id twice and every field named, in every state of the page (invite, 2FA set up, 2FA on)', async () => {
    const pages: Record<string, string> = {};
    pages.plain = (await get('/dashboard/configuracoes')).text;
    pages.invite = (
      await post('/equipe/convidar', { email: `novo-${api.dialect}@loja.example`, role: 'editor' })
    ).text;
    pages.lastOwner = (await post('/equipe/papel', { email: owner.email, role: 'viewer' })).text;
    const setup = await post('/conta/duas-etapas/configurar');
    pages.setup = setup.text;
    const secret = /<code class="secret">([A-Z2-7]+)<\/code>/.exec(setup.text)![1]!;
    const sealed = /name="setup" value="([^"]+)"/.exec(setup.text)![1]!;
    const password = owner.password;
    pages.wrongCode = (
      await post('/conta/duas-etapas/ativar', { setup: sealed, code: '000000', password })
    ).text;
    const on = await post('/conta/duas-etapas/ativar', {
      setup: sealed,
      code: totpCode(secret, totpStep()),
      password,
    });
    expect(on.status).toBe(303);
    pages.twoStepOn = (await get(on.headers.get('location')!)).text;
    expect(pages.twoStepOn).toContain('Desativar verificação em duas etapas');
    for (const [state, html] of Object.entries(pages)) {
      expect(duplicateIds(html), state).toEqual([]);
      expect(unlabelled(html), state).toEqual([]);
    }
    // The answers a phone must not miss are marked for focus.
    expect(pages.invite.includes('data-answer="true"><p>Convite enviado')).toBe(true);
    expect(pages.lastOwner.includes(`data-answer="true">${LAST_OWNER}`)).toBe(true);
    expect(pages.setup.includes('<div class="stack" tabindex="-1" data-answer="true">')).toBe(true);
    expect(pages.wrongCode.includes('data-answer="true">Código incorreto')).toBe(true);
  });
});

describeEachDatabase('the favicon', (api) => {
  it('every page links the SVG icon, kept a year; /favicon.ico redirects to it', async () => {
    const { storeId } = await api.createStore({ name: 'Loja Ícone' });
    const login = await dashboardRequest(api.baseUrl, null, 'GET', '/dashboard/login');
    const href = /<link rel="icon" href="([^"]+)" type="image\/svg\+xml"/.exec(login.text)?.[1];
    expect(href).toMatch(/^\/assets\/favicon\.[0-9a-f]{12}\.svg$/);
    const session = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, 'owner'));
    expect((await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard')).text).toContain(
      `<link rel="icon" href="${href}"`,
    );
    const icon = await fetch(`${api.baseUrl}${href}`);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml');
    expect(icon.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await icon.text()).toMatch(/^<svg /);
    const ico = await fetch(`${api.baseUrl}/favicon.ico`, { redirect: 'manual' });
    expect(ico.status).toBe(301);
    expect(ico.headers.get('location')).toBe(href);
  });
});
