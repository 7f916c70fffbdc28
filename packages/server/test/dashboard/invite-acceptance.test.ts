import { beforeAll, expect, it } from 'vitest';
import { hashSecretToken } from '../../src/domain/accounts/secret-token.js';
import { addMember } from '../../src/domain/accounts/team.js';
import { auditOf } from '../support/store-records.js';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import {
  addDashboardUser,
  csrfOf,
  dashboardLogin,
  dashboardRequest,
  sessionCookieOf,
} from '../support/dashboard.js';
import type { DashboardResponse, DashboardSession } from '../support/dashboard.js';

/** A page's HTML without the cards' column labels (`data-label`), to match table cells as they read. */
const unlabelled = (html: string) => html.replace(/ data-label="[^"]*"/g, '');

const TEAM = '/dashboard/configuracoes/equipe';
const PASSWORD = 'senha-tomada-123';

const membership = (api: TestApi, storeId: string, userId: string) =>
  api.db
    .selectFrom('memberships')
    .select(['role', 'accepted_at'])
    .where('store_id', '=', storeId)
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();

const passwordOf = async (api: TestApi, email: string) =>
  (
    await api.db
      .selectFrom('users')
      .select('password_hash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow()
  ).password_hash;

/** The path of the invite link an owner's invite (or re-send) shows. */
function linkIn(html: string): string {
  const url = /name="invite_url" readonly value="([^"]+)"/.exec(html)?.[1];
  if (!url) throw new Error('no invite link on the page');
  return new URL(url).pathname;
}

/** A store and its signed-in owner. */
async function storeWithOwner(api: TestApi, name: string) {
  const { storeId } = await api.createStore({ name });
  const owner = await addDashboardUser(api, storeId, 'owner');
  return { storeId, owner, session: await dashboardLogin(api.baseUrl, owner) };
}

/** The session an invite link's password form started, with its CSRF token. */
async function sessionFrom(api: TestApi, response: DashboardResponse) {
  const cookie = sessionCookieOf(response);
  const home = await dashboardRequest(api.baseUrl, { cookie, csrf: '' }, 'GET', '/dashboard');
  return { cookie, csrf: csrfOf(home.text), home };
}

describeEachDatabase('dashboard invites: a membership is accepted by its person', (api) => {
  let a: Awaited<ReturnType<typeof storeWithOwner>>;
  let b: Awaited<ReturnType<typeof storeWithOwner>>;
  const invite = (session: DashboardSession, email: string, role = 'owner') =>
    dashboardRequest(api.baseUrl, session, 'POST', `${TEAM}/convidar`, { email, role });

  beforeAll(async () => {
    a = await storeWithOwner(api, 'Loja A');
    b = await storeWithOwner(api, 'Loja B');
  });

  it("another store's owner cannot set the password of an account invited to store B (the Demo owner's case)", async () => {
    const email = `dono-${api.dialect}@demo.example`;
    // Store B's owner invite, made the way the first start makes the Demo owner's.
    const pending = await addMember(api.db, { storeId: b.storeId, email, role: 'owner', invite: true });

    const theirs = await invite(a.session, email, 'viewer');
    expect(theirs.status).toBe(200);
    const path = linkIn(theirs.text);
    const page = await dashboardRequest(api.baseUrl, null, 'GET', path);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('name="password"');
    const takeover = await dashboardRequest(api.baseUrl, null, 'POST', path, {
      password: PASSWORD,
      confirmation: PASSWORD,
    });
    expect(takeover.status).toBe(403);
    expect(takeover.headers.get('set-cookie')).toBeNull();
    expect(await passwordOf(api, email)).toBeNull();
    expect((await membership(api, b.storeId, pending.id)).accepted_at).toBeNull();

    // Store B's own link still sets the password and accepts B's membership, and only it.
    const own = await dashboardRequest(
      api.baseUrl,
      null,
      'POST',
      `/dashboard/convite/${pending.inviteToken!}`,
      {
        password: PASSWORD,
        confirmation: PASSWORD,
      },
    );
    expect(own.status).toBe(303);
    const signedIn = await sessionFrom(api, own);
    expect(signedIn.home.text).toContain('Loja B');
    expect((await membership(api, b.storeId, pending.id)).accepted_at).not.toBeNull();
    expect((await membership(api, a.storeId, pending.id)).accepted_at).toBeNull();
    const toA = await dashboardRequest(api.baseUrl, signedIn, 'POST', '/dashboard/loja', {
      store_id: a.storeId,
    });
    expect(toA.status).toBe(404);
  });

  it("an account whose password store A made, invited later by B, stays out of B until its person accepts with B's link", async () => {
    const email = `vitima-${api.dialect}@loja.example`;
    // A invites a fresh address and sets its password itself through the link it was shown.
    const made = await invite(a.session, email, 'viewer');
    const aLink = linkIn(made.text);
    const set = await dashboardRequest(api.baseUrl, null, 'POST', aLink, {
      password: PASSWORD,
      confirmation: PASSWORD,
    });
    expect(set.status).toBe(303);

    // B invites the address: its owner reads "Convite enviado", not "já tem conta … basta entrar".
    const later = await invite(b.session, email, 'owner');
    expect(later.status).toBe(200);
    expect(later.text).not.toContain('basta entrar com a senha de sempre');
    const bLink = linkIn(later.text);
    const team = await dashboardRequest(api.baseUrl, b.session, 'GET', '/dashboard/configuracoes');
    expect(unlabelled(team.text)).toMatch(new RegExp(`<td>${email}</td>.*?<td>Convite enviado</td>`, 's'));

    // A, signed in with the password it made, is in store A only, and writes nothing into B.
    const asVictim = await dashboardLogin(api.baseUrl, { email, password: PASSWORD });
    expect(
      (await dashboardRequest(api.baseUrl, asVictim, 'POST', '/dashboard/loja', { store_id: b.storeId }))
        .status,
    ).toBe(404);
    await dashboardRequest(api.baseUrl, null, 'POST', '/dashboard/login', {
      email,
      password: 'errada-123456',
    });
    const userId = (
      await api.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow()
    ).id;
    expect((await membership(api, b.storeId, userId)).accepted_at).toBeNull();
    const inB = await auditOf(api, b.storeId);
    expect(inB.filter((entry) => entry.includes(email))).toEqual([`member_invited: ${email} (Proprietário)`]);
    expect(await auditOf(api, a.storeId, 'login')).toEqual(
      expect.arrayContaining([`login: ${email}`, `login_failed: ${email}`]),
    );

    // B's link asks its person to sign in; another signed-in account cannot accept it.
    const anonymous = await dashboardRequest(api.baseUrl, null, 'GET', bLink);
    expect(anonymous.text).toContain('Esta conta já existe');
    expect(
      (
        await dashboardRequest(api.baseUrl, null, 'POST', bLink, {
          password: 'x'.repeat(12),
          confirmation: 'x'.repeat(12),
        })
      ).status,
    ).toBe(403);
    expect((await dashboardRequest(api.baseUrl, a.session, 'POST', `${bLink}/aceitar`)).status).toBe(403);

    // The person, signed in, accepts with B's link: B's membership only, and the session moves there.
    const offer = await dashboardRequest(api.baseUrl, asVictim, 'GET', bLink);
    expect(offer.text).toContain('Aceitar convite');
    const accepted = await dashboardRequest(api.baseUrl, asVictim, 'POST', `${bLink}/aceitar`);
    expect(accepted.status).toBe(303);
    expect((await membership(api, b.storeId, userId)).accepted_at).not.toBeNull();
    const home = await dashboardRequest(api.baseUrl, asVictim, 'GET', '/dashboard');
    expect(home.text).toContain('Loja B');
    expect(await auditOf(api, b.storeId, 'member_joined')).toContain(`member_joined: ${email}`);
    // Spent: the link opens nothing any more.
    expect((await dashboardRequest(api.baseUrl, asVictim, 'GET', bLink)).status).toBe(404);
  });

  it('an invite not accepted is sent again with a new link (also once expired); the old one stops working', async () => {
    const email = `reenvio-${api.dialect}@loja.example`;
    const first = linkIn((await invite(b.session, email, 'editor')).text);
    await api.db
      .updateTable('invites')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', hashSecretToken(first.split('/').pop()!))
      .execute();
    expect((await dashboardRequest(api.baseUrl, null, 'GET', first)).status).toBe(404);
    const team = await dashboardRequest(api.baseUrl, b.session, 'GET', '/dashboard/configuracoes');
    expect(team.text).toContain(`aria-label="Reenviar convite para ${email}"`);

    const again = await dashboardRequest(api.baseUrl, b.session, 'POST', `${TEAM}/reenviar`, { email });
    expect(again.status).toBe(200);
    const second = linkIn(again.text);
    expect(second).not.toBe(first);
    expect(await auditOf(api, b.storeId, 'member_invited')).toContain(
      `member_invited: ${email} (Editor, convite reenviado)`,
    );
    const third = linkIn(
      (await dashboardRequest(api.baseUrl, b.session, 'POST', `${TEAM}/reenviar`, { email })).text,
    );
    expect((await dashboardRequest(api.baseUrl, null, 'GET', second)).status).toBe(404);
    const joined = await dashboardRequest(api.baseUrl, null, 'POST', third, {
      password: PASSWORD,
      confirmation: PASSWORD,
    });
    expect(joined.status).toBe(303);
    const done = await dashboardRequest(api.baseUrl, b.session, 'POST', `${TEAM}/reenviar`, { email });
    expect(done.status).toBe(409);
    expect(done.text).toContain('já aceitou o convite');
    for (const role of ['editor', 'viewer'] as const) {
      const other = await dashboardLogin(api.baseUrl, await addDashboardUser(api, b.storeId, role));
      expect((await dashboardRequest(api.baseUrl, other, 'POST', `${TEAM}/reenviar`, { email })).status).toBe(
        403,
      );
    }
  });

  it('an invited owner does not count as an owner: the only accepted owner cannot step down', async () => {
    const { storeId, session } = await storeWithOwner(api, 'Loja Dono Convidado');
    const ownerEmail = (
      await api.db
        .selectFrom('users')
        .innerJoin('memberships', 'memberships.user_id', 'users.id')
        .select('users.email')
        .where('memberships.store_id', '=', storeId)
        .executeTakeFirstOrThrow()
    ).email;
    await invite(session, `outro-dono-${api.dialect}@loja.example`, 'owner');
    const demote = await dashboardRequest(api.baseUrl, session, 'POST', `${TEAM}/papel`, {
      email: ownerEmail,
      role: 'viewer',
    });
    expect(demote.status).toBe(409);
    expect(demote.text).toContain('A loja precisa de pelo menos um proprietário.');
  });
});
