import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import type { Command } from 'commander';
import { createSecretBox } from '../../platform/values/secret-box.js';
import {
  checkCardProvider,
  describeCardProvider,
} from '../../domain/payments/card-settings/card-provider-admin.js';
import {
  findCardProviderSettings,
  removeCardProviderSettings,
  saveCardProviderSettings,
} from '../../domain/payments/card-settings/card-provider-settings.js';
import { CARD_PSP_LABELS, CARD_PSPS } from '../../domain/payments/card-settings/card-credentials.js';
import type { CardPsp } from '../../domain/payments/card-settings/card-credentials.js';
import { recordAudit } from '../../domain/accounts/audit.js';
import { CLI, print, withDatabase } from './context.js';
import { withProviders } from './pix-provider-command.js';
import { fail } from '../server/fail.js';

const MODES = ['live', 'test'] as const;
type Mode = (typeof MODES)[number];

/** The words the audit log uses for a mode, as the dashboard names it. */
const MODE_LABELS: Record<Mode, string> = { live: 'produção', test: 'teste' };

interface StoreModeOptions {
  store: string;
  mode: Mode;
  json?: boolean;
}

interface SetOptions extends StoreModeOptions {
  provider: CardPsp;
  accessTokenFile?: string;
  secretKeyFile?: string;
  publicKey: string;
  webhookSecretFile?: string;
  baseUrl?: string;
  ca?: string;
}

/** A secret from its file: one line, its line break dropped. */
function readOrExit(path: string, option: string): string {
  try {
    return readFileSync(path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    return fail(
      `${option}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** The secret file each PSP takes, refusing the other PSP's options (they would be silently ignored). */
function secretOf(options: SetOptions): string {
  if (options.provider === 'mercadopago') {
    if (options.secretKeyFile !== undefined)
      fail('--secret-key-file is for Pagar.me; Mercado Pago takes --access-token-file');
    if (options.accessTokenFile === undefined) fail('--access-token-file is required for Mercado Pago');
    return readOrExit(options.accessTokenFile, '--access-token-file');
  }
  if (options.accessTokenFile !== undefined)
    fail('--access-token-file is for Mercado Pago; Pagar.me takes --secret-key-file');
  if (options.webhookSecretFile !== undefined)
    fail('--webhook-secret-file is for Mercado Pago only: Pagar.me notifications carry no signature');
  if (options.secretKeyFile === undefined) fail('--secret-key-file is required for Pagar.me');
  return readOrExit(options.secretKeyFile, '--secret-key-file');
}

const modeOption = () =>
  new Option('--mode <mode>', 'which keys the provider serves: live or test')
    .choices(MODES)
    .makeOptionMandatory();

export function registerCardProviderCommand(program: Command): void {
  const command = program
    .command('card-provider')
    .description(
      "a store's card PSP per mode: Mercado Pago (Checkout API) or Pagar.me v5; test mode without one uses the simulated provider",
    );

  command
    .command('set')
    .description('store (or replace) the card PSP of a store for one mode; secrets are kept encrypted')
    .requiredOption('--store <store_id>', 'the store')
    .addOption(modeOption())
    .addOption(new Option('--provider <psp>', 'the PSP').choices(CARD_PSPS).makeOptionMandatory())
    .option('--access-token-file <path>', 'Mercado Pago: file holding the access token (TEST-… or APP_USR-…)')
    .option('--secret-key-file <path>', 'Pagar.me: file holding the secret key (sk_test_… or sk_…)')
    .requiredOption(
      '--public-key <key>',
      'the public key the purchase page uses (Mercado Pago TEST-/APP_USR-…, Pagar.me pk_…)',
    )
    .option('--webhook-secret-file <path>', "Mercado Pago: file holding the webhooks' secret signature")
    .option(
      '--base-url <url>',
      "the PSP's API (default https://api.mercadopago.com or https://api.pagar.me/core/v5)",
    )
    .option('--ca <pem>', "extra CA to trust for the PSP's server certificate")
    .option('--json', 'print one JSON object')
    .action(async (options: SetOptions) => {
      const secret = secretOf(options);
      const webhookSecret =
        options.webhookSecretFile === undefined
          ? null
          : readOrExit(options.webhookSecretFile, '--webhook-secret-file');
      const caPem = options.ca === undefined ? undefined : readOrExit(options.ca, '--ca');
      const livemode = options.mode === 'live';
      await withDatabase(async ({ kysely }, config) => {
        const box = createSecretBox(config.secret);
        let row;
        try {
          row = await kysely.transaction().execute(async (trx) => {
            const saved = await saveCardProviderSettings(trx, box, {
              storeId: options.store,
              livemode,
              provider: options.provider,
              secret,
              publicKey: options.publicKey,
              webhookSecret,
              baseUrl: options.baseUrl,
              caPem,
            });
            await recordAudit(
              trx,
              saved.store_id,
              CLI,
              'card_provider_changed',
              `${CARD_PSP_LABELS[saved.provider]} (${MODE_LABELS[options.mode]}): ${saved.base_url}, chave pública ${saved.public_key}`,
            );
            return saved;
          });
        } catch (error) {
          return fail((error as Error).message);
        }
        const shown = describeCardProvider(box, row, config.publicUrl);
        print(
          !!options.json,
          shown,
          [
            `Saved the ${CARD_PSP_LABELS[row.provider]} card provider of store ${row.store_id} for ${options.mode} mode (${row.base_url}).`,
            `Notification URL (paste it into the PSP's webhook settings): ${shown.webhook_url}`,
            'Next: card-provider check.',
          ].join('\n'),
        );
      });
    });

  command
    .command('show')
    .description("print a store's card PSP for one mode and its notification URL (never a secret)")
    .requiredOption('--store <store_id>', 'the store')
    .addOption(modeOption())
    .option('--json', 'print one JSON object')
    .action(async (options: StoreModeOptions) => {
      await withDatabase(async ({ kysely }, config) => {
        const row = await findCardProviderSettings(kysely, options.store, options.mode === 'live');
        if (!row) fail(noProvider(options));
        const shown = describeCardProvider(createSecretBox(config.secret), row, config.publicUrl);
        print(!!options.json, shown, JSON.stringify(shown, null, 2));
      });
    });

  command
    .command('check')
    .description('one authenticated read at the PSP: proves the URL, the TLS trust and the secret')
    .requiredOption('--store <store_id>', 'the store')
    .addOption(modeOption())
    .option('--json', 'print one JSON object')
    .action(async (options: StoreModeOptions) => {
      await withProviders(async ({ kysely }, payments) => {
        const livemode = options.mode === 'live';
        const row = await findCardProviderSettings(kysely, options.store, livemode);
        if (!row) throw new Error(noProvider(options));
        await checkCardProvider(await payments.card({ storeId: options.store, livemode }));
        print(
          !!options.json,
          { ok: true, store_id: options.store, mode: options.mode, provider: row.provider },
          `${CARD_PSP_LABELS[row.provider]} accepted the ${options.mode} credentials of store ${options.store}.`,
        );
      });
    });

  command
    .command('remove')
    .description("delete a store's card PSP for one mode (test mode then uses the simulated provider)")
    .requiredOption('--store <store_id>', 'the store')
    .addOption(modeOption())
    .option('--json', 'print one JSON object')
    .action(async (options: StoreModeOptions) => {
      await withDatabase(async ({ kysely }) => {
        const livemode = options.mode === 'live';
        const removed = await kysely.transaction().execute(async (trx) => {
          const done = await removeCardProviderSettings(trx, options.store, livemode);
          if (done)
            await recordAudit(
              trx,
              options.store,
              CLI,
              'card_provider_changed',
              `${MODE_LABELS[options.mode]}: removidas`,
            );
          return done;
        });
        if (!removed) fail(noProvider(options));
        print(
          !!options.json,
          { store_id: options.store, mode: options.mode, removed: true },
          `Removed the ${options.mode} card provider of store ${options.store}${livemode ? ': its live keys and pages no longer take cards' : ': test mode uses the simulated provider'}.`,
        );
      });
    });
}

function noProvider(options: StoreModeOptions): string {
  return `store ${options.store} has no ${options.mode} card provider${options.mode === 'test' ? ' (test mode uses the simulated provider)' : ''}`;
}
