import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashSecretToken } from '../../src/domain/accounts/secret-token.js';
import { runCli } from '../support/cli.js';
import { startServe } from '../support/service-process.js';
import { describeEachDatabase, TEST_SECRET } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { csrfOf, dashboardLogin, dashboardRequest, sessionCookieOf } from '../support/dashboard.js';

const dir = mkdtempSync(join(tmpdir(), 'sf-users-'));
const passwordFile = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

/** The CLI on the test's own database (as an operator runs it), its public URL the test server's. */
function cliOn(api: TestApi) {
  const env = {
    DATABASE_URL: api.database.url,
    STOREFRONT_SECRET: TEST_SECRET,
    STOREFRONT_PUBLIC_URL: api.baseUrl,
    ...api.database.env,
  };
  return {
    run: (...args: string[]) => runCli(env, ...args),
    async json(...args: string[]) {
      const result = await runCli(env, ...args, '--json');
      if (result.code !== 0) throw new Error(result.stderr);
      return JSON.parse(result.stdout);
    },
  };
}

describeEachDatabase('storefront users and invite links', (api) => {
  it(
    'create with --password-file, list, remove; the person signs in over HTTP',
    { timeout: 120_000 },
    async () => {
      const cli = cliOn(api);
      const { storeId } = await api.createStore({ name: 'Loja CLI' });
      const created = await cli.json(
        'users',
        'create',
        '--store',
        storeId,
        '--email',
        'Ana@Loja.example',
        '--role',
        'owner',
        '--password-file',
        passwordFile(`ana-${api.dialect}`, 'senha-da-ana-123\n'),
      );
      expect(created).toEqual({
        id: expect.any(String),
        email: 'Ana@Loja.example',
        store_id: storeId,
        role: 'owner',
        status: 'active',
      });
      await dashboardLogin(api.baseUrl, { email: 'ana@loja.example', password: 'senha-da-ana-123' });

      const invited = await cli.json(
        'users',
        'create',
        '--store',
        storeId,
        '--email',
        'bia@loja.example',
        '--role',
        'viewer',
        '--invite',
      );
      expect(invited.invite_url).toMatch(new RegExp(`^${api.baseUrl}/dashboard/convite/[\\w-]{22}$`));
      // A new link for an invite not accepted yet; the first stops working.
      const renewed = await cli.json(
        'users',
        'resend-invite',
        '--store',
        storeId,
        '--email',
        'BIA@loja.example',
      );
      expect(renewed).toMatchObject({ id: invited.id, email: 'bia@loja.example', role: 'viewer' });
      expect(renewed.invite_url).not.toBe(invited.invite_url);
      const firstToken = new URL(invited.invite_url).pathname;
      expect((await dashboardRequest(api.baseUrl, null, 'GET', firstToken)).status).toBe(404);
      const accepted = await cli.run(
        'users',
        'resend-invite',
        '--store',
        storeId,
        '--email',
        'ana@loja.example',
      );
      expect(accepted.code).toBe(1);
      expect(accepted.stderr).toMatch(/already accepted the invite/);

      const listed = await cli.json('users', 'list', '--store', storeId);
      expect(listed.data).toEqual([
        expect.objectContaining({
          id: created.id,
          email: 'Ana@Loja.example',
          role: 'owner',
          status: 'active',
        }),
        expect.objectContaining({
          id: invited.id,
          email: 'bia@loja.example',
          role: 'viewer',
          status: 'invited',
        }),
      ]);

      const refusals: [string[], RegExp][] = [
        [['--email', 'ANA@loja.example', '--role', 'editor', '--invite'], /already a member/],
        [
          ['--email', 'c@loja.example', '--role', 'admin', '--invite'],
          /--role must be one of owner, editor, viewer/,
        ],
        [
          ['--email', 'c@loja.example', '--role', 'viewer'],
          /exactly one of --password-file <path> and --invite/,
        ],
        [
          [
            '--email',
            'c@loja.example',
            '--role',
            'viewer',
            '--invite',
            '--password-file',
            passwordFile('x', 'y'.repeat(12)),
          ],
          /exactly one/,
        ],
        [
          [
            '--email',
            'c@loja.example',
            '--role',
            'viewer',
            '--password-file',
            passwordFile('short', '123456789'),
          ],
          /shorter than 10/,
        ],
        [['--email', 'not-an-email', '--role', 'viewer', '--invite'], /is not an e-mail address/],
      ];
      for (const [args, message] of refusals) {
        const result = await cli.run('users', 'create', '--store', storeId, ...args);
        expect(result.code, args.join(' ')).toBe(1);
        expect(result.stderr).toMatch(message);
      }
      expect(
        (
          await cli.run(
            'users',
            'create',
            '--store',
            'nope',
            '--email',
            'c@l.example',
            '--role',
            'viewer',
            '--invite',
          )
        ).stderr,
      ).toMatch(/no store with id nope/);

      const lastOwner = await cli.run('users', 'remove', '--store', storeId, '--email', 'ana@loja.example');
      expect(lastOwner.code).toBe(1);
      expect(lastOwner.stderr).toMatch(/only owner/);
      const removed = await cli.json('users', 'remove', '--store', storeId, '--email', 'BIA@loja.example');
      expect(removed).toMatchObject({ email: 'bia@loja.example', removed: true });
      // The removed person's invite is gone with the membership.
      const token = new URL(renewed.invite_url).pathname.split('/').pop()!;
      expect((await dashboardRequest(api.baseUrl, null, 'GET', `/dashboard/convite/${token}`)).status).toBe(
        404,
      );
      expect((await cli.json('users', 'list', '--store', storeId)).data).toHaveLength(1);
    },
  );

  it('an invite link sets the password once, within 72 hours', async () => {
    const { addMember } = await import('../../src/domain/accounts/team.js');
    const { storeId } = await api.createStore({ name: 'Loja Convite' });
    const email = `nova-${api.dialect}@loja.example`;
    const added = await addMember(api.db, { storeId, email, role: 'editor', invite: true });
    const path = `/dashboard/convite/${added.inviteToken!}`;

    const page = await dashboardRequest(api.baseUrl, null, 'GET', path);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Loja Convite');
    expect(page.text).toContain(email);
    const mismatch = await dashboardRequest(api.baseUrl, null, 'POST', path, {
      password: 'senha-nova-123',
      confirmation: 'senha-nova-124',
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain('não são iguais');
    const short = await dashboardRequest(api.baseUrl, null, 'POST', path, {
      password: '123',
      confirmation: '123',
    });
    expect(short.status).toBe(400);

    const accepted = await dashboardRequest(api.baseUrl, null, 'POST', path, {
      password: 'senha-nova-123',
      confirmation: 'senha-nova-123',
    });
    expect(accepted.status).toBe(303);
    const session = { cookie: sessionCookieOf(accepted), csrf: '' };
    const home = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard');
    expect(home.status).toBe(200);
    expect(csrfOf(home.text)).toBeTruthy();
    const row = await api.db
      .selectFrom('invites')
      .selectAll()
      .where('token_hash', '=', hashSecretToken(added.inviteToken!))
      .executeTakeFirstOrThrow();
    expect(row.used_at).not.toBeNull();

    // Used once: the link is spent, and cannot reset the password.
    for (const method of ['GET', 'POST'] as const) {
      const again = await dashboardRequest(api.baseUrl, null, method, path, {
        password: 'outra-senha-123',
        confirmation: 'outra-senha-123',
      });
      expect(again.status).toBe(404);
      expect(again.text).toContain('Este convite não vale mais');
    }
    await dashboardLogin(api.baseUrl, { email, password: 'senha-nova-123' });

    // Expired: 72 hours after it was made.
    const later = await addMember(api.db, {
      storeId,
      email: `tarde-${api.dialect}@loja.example`,
      role: 'viewer',
      invite: true,
    });
    await api.db
      .updateTable('invites')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('token_hash', '=', hashSecretToken(later.inviteToken!))
      .execute();
    expect(
      (await dashboardRequest(api.baseUrl, null, 'GET', `/dashboard/convite/${later.inviteToken!}`)).status,
    ).toBe(404);
    // A made-up token of the right shape finds nothing.
    expect(
      (await dashboardRequest(api.baseUrl, null, 'GET', `/dashboard/convite/${'A'.repeat(22)}`)).status,
    ).toBe(404);
  });
});

describe('the first start', () => {
  it(
    'prints the Demo store owner invite link beside the demo key; it opens',
    { timeout: 120_000 },
    async () => {
      const database = `sqlite:${join(mkdtempSync(join(tmpdir(), 'sf-first-')), 'first.sqlite')}`;
      const serve = await startServe('first-start-invite', { DATABASE_URL: database });
      try {
        const [, link] = await serve.process.waitFor(
          /invite link, valid 72 hours, used once:\n {2}(http:\/\/\S+)/,
        );
        expect(serve.process.output).toContain('sk_test_');
        expect(serve.process.output).toContain("set the owner's password (dono@example.com)");
        expect(link).toMatch(new RegExp(`^${serve.url}/dashboard/convite/[\\w-]{22}$`));
        const page = await fetch(link!);
        expect(page.status).toBe(200);
        const html = await page.text();
        expect(html).toContain('Loja de demonstração');
        expect(html).toContain('dono@example.com');
      } finally {
        await serve.process.kill();
      }
    },
  );
});
