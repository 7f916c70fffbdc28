import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { totpCode, totpStep } from '../../src/domain/accounts/totp.js';
import { runCli } from '../support/cli.js';
import { describeEachDatabase, TEST_SECRET } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';
import type { DashboardUser } from '../support/dashboard.js';

const ACTIVATE = '/dashboard/configuracoes/conta/duas-etapas/ativar';
const login = (api: TestApi, email: string, password: string) =>
  dashboardRequest(api.baseUrl, null, 'POST', '/dashboard/login', { email, password });

/** Sets two-step verification up in Minha conta with the password given; returns the last answer. */
async function turnOn(api: TestApi, user: DashboardUser, password: string) {
  const session = await dashboardLogin(api.baseUrl, user);
  const path = '/dashboard/configuracoes/conta/duas-etapas/configurar';
  const setup = await dashboardRequest(api.baseUrl, session, 'POST', path);
  const secret = /Chave: <code class="secret">([A-Z2-7]{32})<\/code>/.exec(setup.text)![1]!;
  const sealed = /name="setup" value="([^"]+)"/.exec(setup.text)![1]!;
  return dashboardRequest(api.baseUrl, session, 'POST', ACTIVATE, {
    setup: sealed,
    code: totpCode(secret, totpStep()),
    password,
  });
}

const twoStepOn = async (api: TestApi, userId: string) =>
  (
    await api.db
      .selectFrom('users')
      .select('totp_secret_sealed')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow()
  ).totp_secret_sealed !== null;

const dir = mkdtempSync(join(tmpdir(), 'sf-2fa-'));

describeEachDatabase('two-step verification: the password to turn it on, and the lost phone', (api) => {
  let storeId: string;
  let owner: DashboardUser;
  beforeAll(async () => {
    ({ storeId } = await api.createStore({ name: 'Loja 2FA' }));
    owner = await addDashboardUser(api, storeId, 'owner');
  });
  const person = (role: 'owner' | 'editor' = 'editor', store = storeId) =>
    addDashboardUser(api, store, role, `f2a-${randomBytes(6).toString('hex')}@loja.example`);

  it('turning it on asks for the password: a wrong one changes nothing', { timeout: 120_000 }, async () => {
    const user = await person();
    const wrong = await turnOn(api, user, 'nao-e-a-senha');
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('Senha incorreta.');
    expect(await twoStepOn(api, user.id)).toBe(false);
    const right = await turnOn(api, user, user.password);
    expect(right.status).toBe(303);
    expect(await twoStepOn(api, user.id)).toBe(true);
  });

  it(
    "an owner resets a member's two-step verification in Equipe: audited, their sessions end, they sign in with the password",
    { timeout: 120_000 },
    async () => {
      const user = await person();
      expect((await turnOn(api, user, user.password)).status).toBe(303);
      const theirs = await dashboardLogin(api.baseUrl, owner); // any open session of the owner
      const settings = await dashboardRequest(api.baseUrl, theirs, 'GET', '/dashboard/configuracoes');
      expect(settings.text).toContain(`Redefinir duas etapas de ${user.email}`);
      const res = await dashboardRequest(
        api.baseUrl,
        theirs,
        'POST',
        '/dashboard/configuracoes/equipe/duas-etapas',
        {
          email: user.email,
        },
      );
      expect(res.status).toBe(303);
      expect(await twoStepOn(api, user.id)).toBe(false);
      const signIn = await login(api, user.email, user.password);
      expect(signIn.headers.get('location')).toBe('/dashboard');
      const entries = await api.db
        .selectFrom('audit_log')
        .selectAll()
        .where('store_id', '=', storeId)
        .where('action', '=', 'totp_reset')
        .execute();
      expect(entries).toContainEqual(expect.objectContaining({ user_id: owner.id, detail: user.email }));
    },
  );

  it(
    'an owner cannot reset it for someone who also belongs to another store, nor for a non-owner role',
    { timeout: 120_000 },
    async () => {
      const other = await api.createStore({ name: 'Outra loja' });
      const user = await person();
      await api.db
        .insertInto('memberships')
        .values({
          user_id: user.id,
          store_id: other.storeId,
          role: 'owner',
          created_at: new Date().toISOString(),
        })
        .execute();
      expect((await turnOn(api, user, user.password)).status).toBe(303);
      const mine = await dashboardLogin(api.baseUrl, owner);
      const refused = await dashboardRequest(
        api.baseUrl,
        mine,
        'POST',
        '/dashboard/configuracoes/equipe/duas-etapas',
        {
          email: user.email,
        },
      );
      expect(refused.status).toBe(409);
      expect(await twoStepOn(api, user.id)).toBe(true);
      const editor = await dashboardLogin(api.baseUrl, await person());
      const notOwner = await dashboardRequest(
        api.baseUrl,
        editor,
        'POST',
        '/dashboard/configuracoes/equipe/duas-etapas',
        {
          email: user.email,
        },
      );
      expect(notOwner.status).toBe(403);
    },
  );

  it(
    'a sole owner with two-step verification is let back in by the operator: reset-2fa and reset-password',
    { timeout: 180_000 },
    async () => {
      const { storeId: alone } = await api.createStore({ name: 'Loja de uma dona' });
      const sole = await person('owner', alone);
      expect((await turnOn(api, sole, sole.password)).status).toBe(303);
      const env = {
        DATABASE_URL: api.database.url,
        STOREFRONT_SECRET: TEST_SECRET,
        STOREFRONT_PUBLIC_URL: api.baseUrl,
        ...api.database.env,
      };
      const twoStep = await runCli(
        env,
        'users',
        'reset-2fa',
        '--email',
        sole.email,
        '--store',
        alone,
        '--json',
      );
      expect(twoStep.code, twoStep.stderr).toBe(0);
      expect(JSON.parse(twoStep.stdout)).toMatchObject({ email: sole.email, two_step_reset: true });
      // A link to set a new password (printed for the operator to hand over), then used.
      const link = await runCli(env, 'users', 'reset-password', '--email', sole.email, '--json');
      expect(link.code, link.stderr).toBe(0);
      const url = JSON.parse(link.stdout).reset_url as string;
      expect(url).toMatch(new RegExp(`^${api.baseUrl}/dashboard/login/redefinir/[\\w-]{43}$`));
      const fresh = 'nova-senha-da-dona-da-loja';
      const set = await dashboardRequest(api.baseUrl, null, 'POST', new URL(url).pathname, {
        password: fresh,
        confirmation: fresh,
      });
      expect(set.status).toBe(303);
      const back = await login(api, sole.email, fresh);
      expect(back.headers.get('location')).toBe('/dashboard');
      // Or straight from a file.
      const file = join(dir, 'senha');
      writeFileSync(file, 'outra-senha-de-arquivo\n');
      const direct = await runCli(
        env,
        'users',
        'reset-password',
        '--email',
        sole.email,
        '--password-file',
        file,
      );
      expect(direct.code, direct.stderr).toBe(0);
      expect((await login(api, sole.email, 'outra-senha-de-arquivo')).status).toBe(303);
      const entries = await api.db
        .selectFrom('audit_log')
        .select(['action', 'detail', 'user_id', 'actor_kind'])
        .where('store_id', '=', alone)
        .where('action', 'in', ['totp_reset', 'password_reset'])
        .execute();
      // The operator's change, named "CLI" on the audit page like every command's.
      for (const action of ['totp_reset', 'password_reset'])
        expect(entries).toContainEqual({ action, detail: sole.email, user_id: null, actor_kind: 'cli' });
      // reset-2fa --store refuses a store the person is not in.
      const elsewhere = await runCli(env, 'users', 'reset-2fa', '--email', sole.email, '--store', storeId);
      expect(elsewhere.code).not.toBe(0);
    },
  );
});
