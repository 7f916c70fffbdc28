import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { normalizePixSettings } from '../../domain/pix/pix-settings.js';
import type { PixSettings, PixSettingsInput } from '../../domain/pix/pix-settings.js';
import { isCheckoutMode } from '../../domain/stores/checkout-mode.js';
import { checkoutModeProblem } from '../../flows/check-checkout-mode.js';
import { handleProblem } from '../../platform/values/handle.js';
import { HandleTakenError, findStore, listStores, updateStore } from '../../domain/stores/stores.js';
import { createStore } from '../../flows/create-store.js';
import type { CheckoutMode, StoresTable } from '../../domain/stores/stores.js';
import { recordAudit } from '../../domain/accounts/audit.js';
import { CLI, print, withDatabase } from './context.js';
import { fail } from '../server/fail.js';

interface PixOptions extends PixSettingsInput {
  json?: boolean;
  handle?: string;
  checkoutMode?: string;
}

/** The Pix options `create` and `update` share; unset ones keep their test-mode defaults. */
function withPixOptions(command: Command): Command {
  return command
    .option(
      '--pix-key <key>',
      'Pix key receiving live charges (CPF, CNPJ, e-mail, +55 phone or random key); test charges carry a generated test key',
    )
    .option('--merchant-name <name>', 'name payers see, up to 25 characters (default: the store name)')
    .option('--merchant-city <city>', 'city payers see, up to 15 characters (default: SAO PAULO)')
    .option('--handle <handle>', 'public name in purchase page URLs, a-z0-9 and dashes, 3-40 characters')
    .option('--checkout-mode <mode>', 'how purchase pages charge buyers: test (simulated) or live');
}

/** The page options, checked before anything is written. */
function pageOptionsOrExit(options: PixOptions): { handle?: string; checkoutMode?: CheckoutMode } {
  const { handle, checkoutMode } = options;
  if (handle !== undefined) {
    const problem = handleProblem(handle);
    if (problem !== null) fail(problem);
  }
  if (checkoutMode !== undefined && !isCheckoutMode(checkoutMode)) {
    fail(`--checkout-mode must be test or live, got "${checkoutMode}"`);
  }
  return {
    ...(handle !== undefined && { handle }),
    ...(checkoutMode !== undefined && { checkoutMode: checkoutMode as CheckoutMode }),
  };
}

async function refuseUnusableMode(db: Kysely<Database>, storeId: string | null, mode?: CheckoutMode) {
  const problem = mode === undefined ? null : await checkoutModeProblem(db, storeId, mode);
  if (problem !== null) fail(problem);
}

/** A handle another store holds is the operator's mistake: a message, not a stack trace. */
async function orFailOnTakenHandle<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof HandleTakenError) fail(error.message);
    throw error;
  }
}

function pixSettingsOrExit(options: PixSettingsInput): PixSettings {
  try {
    return normalizePixSettings(options);
  } catch (error) {
    return fail((error as Error).message);
  }
}

/** The settings an update changed, as the owners' audit log names them. */
const SETTING_LABELS: [keyof StoresTable, string][] = [
  ['name', 'nome'],
  ['handle', 'identificador'],
  ['checkout_mode', 'modo de cobrança'],
  ['pix_key', 'chave Pix'],
  ['merchant_name', 'nome do recebedor'],
  ['merchant_city', 'cidade do recebedor'],
];

function describeChanges(before: StoresTable, after: StoresTable): string {
  return SETTING_LABELS.filter(([column]) => before[column] !== after[column])
    .map(([column, label]) => `${label}: ${before[column] ?? '—'} → ${after[column] ?? '—'}`)
    .join('; ');
}

function describeStore(store: StoresTable) {
  const { id, name, handle, checkout_mode, pix_key, merchant_name, merchant_city } = store;
  return { id, name, handle, checkout_mode, pix_key, merchant_name, merchant_city };
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
      const page = pageOptionsOrExit(options);
      await withDatabase(async ({ kysely }) => {
        await refuseUnusableMode(kysely, null, page.checkoutMode);
        const store = await orFailOnTakenHandle(
          createStore(kysely, { name: options.name, ...pix, ...page }, (trx, created) =>
            recordAudit(trx, created.id, CLI, 'store_created', created.name),
          ),
        );
        print(!!options.json, store, `Created store ${store.id} (${store.name}).`);
      });
    });

  withPixOptions(
    stores
      .command('update <store_id>')
      .description("change a store's name, handle, checkout mode or Pix settings")
      .option('--name <name>', 'store name'),
  )
    .option('--json', 'print one JSON object')
    .action(async (storeId: string, options: PixOptions & { name?: string }) => {
      const pix = pixSettingsOrExit(options);
      const page = pageOptionsOrExit(options);
      if (options.name !== undefined && options.name.trim() === '') fail('--name cannot be empty');
      await withDatabase(async ({ kysely }) => {
        const before = await findStore(kysely, storeId);
        if (!before) fail(`no store with id ${storeId}`);
        await refuseUnusableMode(kysely, storeId, page.checkoutMode);
        const store = await orFailOnTakenHandle(
          kysely.transaction().execute(async (trx) => {
            const after = await updateStore(trx, storeId, {
              ...pix,
              ...page,
              ...(options.name !== undefined && { name: options.name }),
            });
            const changes = after && describeChanges(before, after);
            if (changes) await recordAudit(trx, storeId, CLI, 'store_updated', changes);
            return after;
          }),
        );
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
        const data = rows.map(({ id, name, handle, checkout_mode, created_at }) => ({
          id,
          name,
          handle,
          checkout_mode,
          created_at,
        }));
        const lines = data.map((s) => `${s.id}  ${s.handle}  ${s.checkout_mode}  ${s.name}`);
        print(!!options.json, { data }, lines.join('\n') || 'No stores.');
      });
    });
}
