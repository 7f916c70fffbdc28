import type { Command } from 'commander';
import { createStore, listStores } from '../stores/stores.js';
import { print, withDatabase } from './context.js';

export function registerStoresCommand(program: Command): void {
  const stores = program.command('stores').description('manage stores');

  stores
    .command('create')
    .description('create a store with its default checkout')
    .requiredOption('--name <name>', 'store name')
    .option('--json', 'print one JSON object')
    .action(async (options: { name: string; json?: boolean }) => {
      await withDatabase(async ({ kysely }) => {
        const store = await createStore(kysely, { name: options.name });
        print(!!options.json, store, `Created store ${store.id} (${store.name}).`);
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
