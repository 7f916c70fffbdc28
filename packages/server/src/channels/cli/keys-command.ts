import type { Command } from 'commander';
import { createApiKey, findApiKey, listApiKeys, revokeApiKey } from '../../platform/api-keys/api-keys.js';
import { parseScopes } from '../../platform/api-keys/scopes.js';
import { findStore } from '../../domain/stores/stores.js';
import { recordAudit } from '../../domain/accounts/audit.js';
import { CLI, print, withDatabase } from './context.js';
import { fail } from '../server/fail.js';

export function registerKeysCommand(program: Command): void {
  const keys = program.command('keys').description('manage API keys (stored only as hashes)');

  keys
    .command('create')
    .description('create an API key; it is printed once and never again')
    .requiredOption('--store <store_id>', 'the store the key acts on')
    .requiredOption('--mode <mode>', 'test or live')
    .requiredOption('--scopes <scopes>', 'comma list of scopes, or all')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; mode: string; scopes: string; json?: boolean }) => {
      if (options.mode !== 'test' && options.mode !== 'live') fail('--mode must be test or live');
      let scopes;
      try {
        scopes = parseScopes(options.scopes);
      } catch (error) {
        fail(`--scopes: ${(error as Error).message}`);
      }
      await withDatabase(async ({ kysely }) => {
        if (!(await findStore(kysely, options.store))) fail(`no store with id ${options.store}`);
        const key = await kysely.transaction().execute(async (trx) => {
          const created = await createApiKey(trx, {
            storeId: options.store,
            mode: options.mode as 'test',
            scopes,
          });
          const detail = `${created.prefix} (${created.mode}; ${created.scopes.join(' ')})`;
          await recordAudit(trx, created.store_id, CLI, 'api_key_created', detail);
          return created;
        });
        const out = { id: key.id, key: key.key, store_id: key.store_id, mode: key.mode, scopes: key.scopes };
        print(!!options.json, out, `${key.key}\n(key id ${key.id}; save the key now, it is not shown again)`);
      });
    });

  keys
    .command('list')
    .description("list a store's keys (prefixes only)")
    .requiredOption('--store <store_id>', 'the store')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; json?: boolean }) => {
      await withDatabase(async ({ kysely }) => {
        const data = await listApiKeys(kysely, options.store);
        const human = data
          .map(
            (k) =>
              `${k.id}  ${k.prefix}  ${k.mode}  ${k.revoked_at ? 'revoked' : 'active'}  ${k.scopes.join(',')}`,
          )
          .join('\n');
        print(!!options.json, { data }, human || 'No keys.');
      });
    });

  keys
    .command('revoke <key_id>')
    .description('revoke a key; every node refuses it within 5 seconds')
    .option('--json', 'print one JSON object')
    .action(async (keyId: string, options: { json?: boolean }) => {
      await withDatabase(async ({ kysely }) => {
        const key = await findApiKey(kysely, keyId);
        if (!key) fail(`no key with id ${keyId}`);
        await kysely.transaction().execute(async (trx) => {
          await revokeApiKey(trx, keyId);
          if (!key.revoked_at) await recordAudit(trx, key.store_id, CLI, 'api_key_revoked', key.prefix);
        });
        print(!!options.json, { id: keyId, revoked: true }, `Revoked key ${keyId}.`);
      });
    });
}
