import type { Command } from 'commander';
import { normalizePixSettings } from '../pix/pix-settings.js';
import type { PixSettings, PixSettingsInput } from '../pix/pix-settings.js';
import { createStore, listStores, updateStore } from '../stores/stores.js';
import type { StoresTable } from '../stores/stores.js';
import { fail, print, withDatabase } from './context.js';

interface PixOptions extends PixSettingsInput {
  json?: boolean;
}

/** The Pix options `create` and `update` share; unset ones keep their test-mode defaults. */
function withPixOptions(command: Command): Command {
  return command
    .option(
      '--pix-key <key>',
      'Pix key receiving live charges (CPF, CNPJ, e-mail, +55 phone or random key); test charges carry a generated test key',
    )
    .option('--merchant-name <name>', 'name payers see, up to 25 characters (default: the store name)')
    .option('--merchant-city <city>', 'city payers see, up to 15 characters (default: SAO PAULO)');
}

function pixSettingsOrExit(options: PixSettingsInput): PixSettings {
  try {
    return normalizePixSettings(options);
  } catch (error) {
    return fail((error as Error).message);
  }
}

function describeStore(store: StoresTable) {
  const { id, name, pix_key, merchant_name, merchant_city } = store;
  return { id, name, pix_key, merchant_name, merchant_city };
}

export function registerStoresCommand(program: Command): void {
  const stores = program.command('stores').description('manage stores');

  withPixOptions(
    stores
      .command('create')
      .description('create a store with its default checkout')
      .requiredOption('--name <name>', 'store name'),
  )
    .option('--json', 'print one JSON object')
    .action(async (options: PixOptions & { name: string }) => {
      const pix = pixSettingsOrExit(options);
      await withDatabase(async ({ kysely }) => {
        const store = await createStore(kysely, { name: options.name, ...pix });
        print(!!options.json, store, `Created store ${store.id} (${store.name}).`);
      });
    });

  withPixOptions(
    stores
      .command('update <store_id>')
      .description("change a store's name or Pix settings")
      .option('--name <name>', 'store name'),
  )
    .option('--json', 'print one JSON object')
    .action(async (storeId: string, options: PixOptions & { name?: string }) => {
      const pix = pixSettingsOrExit(options);
      if (options.name !== undefined && options.name.trim() === '') fail('--name cannot be empty');
      await withDatabase(async ({ kysely }) => {
        const store = await updateStore(kysely, storeId, {
          ...pix,
          ...(options.name !== undefined && { name: options.name }),
        });
        if (!store) fail(`no store with id ${storeId}`);
        print(!!options.json, describeStore(store), `Updated store ${store.id} (${store.name}).`);
      });
    });

  stores
    .command('list')
    .description('list stores')
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      await withDatabase(async ({ kysely }) => {
        const rows = await listStores(kysely);
        const data = rows.map(({ id, name, created_at }) => ({ id, name, created_at }));
        print(!!options.json, { data }, data.map((s) => `${s.id}  ${s.name}`).join('\n') || 'No stores.');
      });
    });
}
