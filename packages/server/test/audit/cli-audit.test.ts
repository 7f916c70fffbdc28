import { expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { describeEachDatabase, TEST_SECRET } from '../support/test-api.js';
import type { TestApi } from '../support/test-api.js';
import { auditRecords } from '../support/audit-records.js';
import { addDashboardUser, dashboardLogin, dashboardRequest } from '../support/dashboard.js';

/** A page's HTML without the cards' column labels (`data-label`), to match table cells as they read. */
const unlabelled = (html: string) => html.replace(/ data-label="[^"]*"/g, '');

describeEachDatabase('CLI actions in the audit log', (api: TestApi) => {
  it(
    'keys create and stores update are audited as "CLI", and the owners read "CLI"',
    { timeout: 120_000 },
    async () => {
      const env = { DATABASE_URL: api.database.url, STOREFRONT_SECRET: TEST_SECRET, ...api.database.env };
      const { storeId } = await api.createStore({ name: 'Loja do Operador' });

      const created = await runCli(
        env,
        'keys',
        'create',
        '--store',
        storeId,
        '--mode',
        'live',
        '--scopes',
        'sales:read',
        '--json',
      );
      expect(created.code, created.stderr).toBe(0);
      const key = JSON.parse(created.stdout).key as string;
      const updated = await runCli(env, 'stores', 'update', storeId, '--name', 'Loja Renomeada', '--json');
      expect(updated.code, updated.stderr).toBe(0);

      const rows = await auditRecords(api, storeId);
      expect(
        rows.map(({ action, detail, actor_kind, actor_label, user_id, ip }) => ({
          action,
          detail,
          actor_kind,
          actor_label,
          user_id,
          ip,
        })),
      ).toEqual([
        {
          action: 'api_key_created',
          detail: `${key.slice(0, 12)}… (live; sales:read)`,
          actor_kind: 'cli',
          actor_label: null,
          user_id: null,
          ip: null,
        },
        {
          action: 'store_updated',
          detail: 'nome: Loja do Operador → Loja Renomeada',
          actor_kind: 'cli',
          actor_label: null,
          user_id: null,
          ip: null,
        },
      ]);

      const owner = await addDashboardUser(api, storeId, 'owner');
      const session = await dashboardLogin(api.baseUrl, owner);
      const page = await dashboardRequest(api.baseUrl, session, 'GET', '/dashboard/configuracoes');
      expect(unlabelled(page.text)).toContain('<td>CLI</td><td>Dados da loja alterados</td>');
      expect(unlabelled(page.text)).toContain('<td>CLI</td><td>Chave de API criada</td>');
    },
  );
});
