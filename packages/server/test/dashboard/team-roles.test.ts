import { beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { changeMemberRole, TeamError } from '../../src/domain/accounts/team.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardSession, DashboardUser } from '../support/dashboard.js';

const ROLE_PATH = '/dashboard/configuracoes/equipe/papel';

const roleOf = async (api: TestApi, storeId: string, userId: string) =>
  (
    await api.db
      .selectFrom('memberships')
      .select('role')
      .where('store_id', '=', storeId)
      .where('user_id', '=', userId)
      .executeTakeFirstOrThrow()
  ).role;

const ownerCount = async (api: TestApi, storeId: string) =>
  (
    await api.db
      .selectFrom('memberships')
      .select('user_id')
      .where('store_id', '=', storeId)
      .where('role', '=', 'owner')
      .execute()
  ).length;

const roleChanges = async (api: TestApi, storeId: string) =>
  (
    await api.db
      .selectFrom('audit_log')
      .select('detail')
      .where('store_id', '=', storeId)
      .where('action', '=', 'member_role_changed')
      .orderBy('created_at')
      .orderBy('id')
      .execute()
  ).map((row) => row.detail);

describeEachDatabase('dashboard Configurações: team roles', (api) => {
  const change = (session: DashboardSession, email: string, role: string) =>
    dashboardRequest(api.baseUrl, session, 'POST', ROLE_PATH, { email, role });

  let storeId: string;
  let owner: DashboardUser;
  let session: DashboardSession;

  beforeAll(async () => {
    ({ storeId } = await api.createStore({ name: 'Loja Equipe' }));
    owner = await addDashboardUser(api, storeId, 'owner');
    session = await dashboardLogin(api.baseUrl, owner);
  });

  it('each member has "Alterar papel" with a select of the three roles', async () => {
    const viewer = await addDashboardUser(api, storeId, 'viewer');
    const page = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/configuracoes');
    expect(page.text).toContain(`aria-label="Papel de ${viewer.email}"`);
    expect(page.text).toContain(`aria-label="Alterar papel de ${viewer.email}">Alterar papel</button>`);
    expect(page.text).toContain(`action="${ROLE_PATH}#equipe"`);
  });

  it('an owner changes a role; it applies to the member’s open session at once; audited', async () => {
    const person = await addDashboardUser(api, storeId, 'viewer');
    const theirs = await dashboardLogin(api.baseUrl, person);
    const recovery = () =>
      dashboardRequest(api.baseUrl, theirs, 'POST', '/dashboard/configuracoes/recuperacao', {
        delay_minutes: '60',
        subject: 'Assunto',
        body: 'Texto',
      });
    expect((await recovery()).status).toBe(403);

    const toEditor = await change(session, person.email.toUpperCase(), 'editor');
    expect(toEditor.status).toBe(303);
    expect(toEditor.headers.get('location')).toBe('/dashboard/configuracoes?aviso=papel#equipe');
    expect(await roleOf(api, storeId, person.id)).toBe('editor');
    expect((await change(session, person.email, 'owner')).status).toBe(303);
    expect(await roleOf(api, storeId, person.id)).toBe('owner');
    // The same session, now an owner's.
    expect((await recovery()).status).toBe(303);
    // The same role again records nothing.
    expect((await change(session, person.email, 'owner')).status).toBe(303);
    expect(await roleChanges(api, storeId)).toEqual([
      `${person.email}: Leitor → Editor`,
      `${person.email}: Editor → Proprietário`,
    ]);
    expect((await change(session, person.email, 'viewer')).status).toBe(303);
  });

  it('refuses an unknown role, a non-member, and anyone but an owner', async () => {
    const person = await addDashboardUser(api, storeId, 'viewer');
    const bad = await change(session, person.email, 'admin');
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Escolha um papel.');
    expect((await change(session, 'ninguem@example.com', 'editor')).status).toBe(404);
    for (const role of ['editor', 'viewer'] as const) {
      const other = await dashboardLogin(api.baseUrl, await addDashboardUser(api, storeId, role));
      expect((await change(other, person.email, 'owner')).status, role).toBe(403);
    }
    const forged = await dashboardRequest(
      api.baseUrl,
      session,
      'POST',
      ROLE_PATH,
      { email: person.email, role: 'owner' },
      { csrf: false },
    );
    expect(forged.status).toBe(403);
    expect(await roleOf(api, storeId, person.id)).toBe('viewer');
  });

  it('the last owner can neither step down nor be removed', async () => {
    const { storeId: alone } = await api.createStore({ name: 'Loja de Um Dono' });
    const only = await addDashboardUser(api, alone, 'owner');
    const theirs = await dashboardLogin(api.baseUrl, only);
    const demote = await change(theirs, only.email, 'editor');
    expect(demote.status).toBe(409);
    expect(demote.text).toContain('A loja precisa de pelo menos um proprietário.');
    const remove = await dashboardRequest(
      api.baseUrl,
      theirs,
      'POST',
      '/dashboard/configuracoes/equipe/remover',
      {
        email: only.email,
      },
    );
    expect(remove.status).toBe(409);
    expect(await roleOf(api, alone, only.id)).toBe('owner');
    expect(await roleChanges(api, alone)).toEqual([]);
  });

  it('two owners demoting each other at once leave exactly one owner', async () => {
    for (let round = 0; round < 3; round++) {
      const { storeId: shared } = await api.createStore({ name: `Loja Dupla ${round}` });
      const a = await addDashboardUser(api, shared, 'owner');
      const b = await addDashboardUser(api, shared, 'owner');
      const [sa, sb] = await Promise.all([dashboardLogin(api.baseUrl, a), dashboardLogin(api.baseUrl, b)]);
      const answers = await Promise.all([change(sa, b.email, 'viewer'), change(sb, a.email, 'viewer')]);
      // One wins; the other is refused by the service (409) or, once demoted, by the guard (403).
      const statuses = answers.map((answer) => answer.status).sort();
      expect([
        [303, 403],
        [303, 409],
      ]).toContainEqual(statuses);
      expect(await ownerCount(api, shared), `round ${round}`).toBe(1);
    }
  }, 120_000);

  it('an owner and a removal racing for the last two owners leave one', async () => {
    for (let round = 0; round < 3; round++) {
      const { storeId: shared } = await api.createStore({ name: `Loja Remoção ${round}` });
      const a = await addDashboardUser(api, shared, 'owner');
      const b = await addDashboardUser(api, shared, 'owner');
      const [sa, sb] = await Promise.all([dashboardLogin(api.baseUrl, a), dashboardLogin(api.baseUrl, b)]);
      const answers = await Promise.all([
        dashboardRequest(api.baseUrl, sa, 'POST', '/dashboard/configuracoes/equipe/remover', {
          email: b.email,
        }),
        change(sb, a.email, 'editor'),
      ]);
      // The loser's session may be gone with its membership (a 303 to the login), or refused (409).
      expect(await ownerCount(api, shared), `round ${round} ${answers.map((x) => x.status)}`).toBe(1);
    }
  }, 120_000);

  it('the team service itself, called twice at once (past any guard), never leaves the store without an owner', async () => {
    for (let round = 0; round < 10; round++) {
      const { storeId: shared } = await api.createStore({ name: `Loja Serviço ${round}` });
      const a = await addDashboardUser(api, shared, 'owner');
      const b = await addDashboardUser(api, shared, 'owner');
      const outcomes = await Promise.allSettled([
        changeMemberRole(api.db, shared, a.email, 'viewer'),
        changeMemberRole(api.db, shared, b.email, 'editor'),
      ]);
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(refused, `round ${round}`).toHaveLength(1);
      expect((refused[0] as PromiseRejectedResult).reason).toBeInstanceOf(TeamError);
      expect(await ownerCount(api, shared)).toBe(1);
    }
  }, 120_000);
});
