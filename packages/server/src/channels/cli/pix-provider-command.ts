import { readFileSync } from 'node:fs';
import { Option } from 'commander';
import type { Command } from 'commander';
import type { Config } from '../../platform/config/config.js';
import type { Db } from '../../platform/db/database.js';
import type { PaymentProviders } from '../../domain/payments/payment-providers.js';
import { openPaymentProviders } from '../server/payment-providers.js';
import {
  checkProvider,
  describeProvider,
  registerWebhook,
} from '../../domain/payments/api-pix/provider-admin.js';
import {
  findProviderSettings,
  removeProviderSettings,
  saveProviderSettings,
} from '../../domain/payments/api-pix/provider-settings.js';
import type { ClientIdentity } from '../../domain/payments/api-pix/client-certificate.js';
import { ACCOUNT_TYPES } from '../../domain/payments/api-pix/receiving-account.js';
import { parseTokenParams, TOKEN_AUTHS, TOKEN_FORMATS } from '../../domain/payments/api-pix/token-request.js';
import type { TokenAuth, TokenFormat } from '../../domain/payments/api-pix/token-request.js';
import { createSecretBox } from '../../platform/values/secret-box.js';
import { findStore } from '../../domain/stores/stores.js';
import { recordAudit } from '../../domain/accounts/audit.js';
import { CLI, print, warn, withDatabase } from './context.js';
import { fail } from '../server/fail.js';

interface SetOptions {
  store: string;
  baseUrl: string;
  tokenUrl?: string;
  clientId: string;
  clientSecretFile?: string;
  scope?: string;
  tokenAuth: TokenAuth;
  tokenFormat: TokenFormat;
  tokenParam: string[];
  cert?: string;
  key?: string;
  pfx?: string;
  passphraseFile?: string;
  ca?: string;
  account?: string;
  accountType?: string;
  branch?: string;
  json?: boolean;
}

function readOrExit(path: string, option: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    return fail(
      `${option}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

function identityOf(options: SetOptions): ClientIdentity {
  if (options.pfx !== undefined) {
    if (options.cert !== undefined || options.key !== undefined)
      fail('give either --cert and --key, or --pfx, not both');
    const passphrase =
      options.passphraseFile === undefined
        ? null
        : readOrExit(options.passphraseFile, '--passphrase-file')
            .toString('utf8')
            .replace(/\r?\n$/, '');
    return { pfx: readOrExit(options.pfx, '--pfx'), passphrase };
  }
  if (options.cert === undefined || options.key === undefined) {
    fail(
      'the client certificate is required: --cert <pem> --key <pem>, or --pfx <p12> [--passphrase-file <path>]',
    );
  }
  return {
    certPem: readOrExit(options.cert, '--cert').toString('utf8'),
    keyPem: readOrExit(options.key, '--key').toString('utf8'),
  };
}

/** Opens the database and the payment providers, and closes both after `work`. */
export function withProviders<T>(
  work: (db: Db, payments: PaymentProviders, config: Config) => Promise<T>,
): Promise<T> {
  return withDatabase(async (db, config) => {
    const payments = openPaymentProviders(db.kysely, config);
    try {
      return await work(db, payments, config);
    } catch (error) {
      return fail((error as Error).message);
    } finally {
      await payments.close();
    }
  });
}

export function registerPixProviderCommand(program: Command): void {
  const command = program
    .command('pix-provider')
    .description("a store's live Pix provider: a PSP speaking the Banco Central's API Pix (mTLS + OAuth2)");

  command
    .command('set')
    .description('store (or replace) the PSP settings of a store; secrets are kept encrypted')
    .requiredOption('--store <store_id>', 'the store')
    .requiredOption('--base-url <url>', "the PSP's API Pix base URL, https://…/v2")
    .requiredOption('--client-id <id>', 'OAuth2 client id')
    .option(
      '--client-secret-file <path>',
      'file holding the OAuth2 client secret (required unless --token-auth body: a PSP that takes none)',
    )
    .option('--cert <pem>', 'client certificate (PEM)')
    .option('--key <pem>', 'its private key (PEM, unencrypted)')
    .option('--pfx <p12>', 'client certificate and key as PKCS#12 (.p12/.pfx)')
    .option('--passphrase-file <path>', 'file holding the PKCS#12 passphrase')
    .option('--ca <pem>', "extra CA to trust for the PSP's server certificate")
    .option('--token-url <url>', 'OAuth2 token URL (default: <base-url>/oauth/token)')
    .option('--scope <scopes>', 'scopes the token request asks for, space-separated (default: none)')
    .addOption(
      new Option('--token-auth <how>', 'where the client id and secret go in the token request')
        .choices(TOKEN_AUTHS)
        .default('basic'),
    )
    .addOption(
      new Option('--token-format <format>', 'encoding of the token request body')
        .choices(TOKEN_FORMATS)
        .default('form'),
    )
    .option(
      '--token-param <name=value>',
      'an extra token request parameter (repeatable); values are kept encrypted',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--account <conta>', 'the receiving account of Pix Automático cycle charges (e.g. 12345-6)')
    .option('--account-type <type>', `its type, with --account: ${ACCOUNT_TYPES.join(', ')}`)
    .option('--branch <agência>', 'its branch (agência), 1 to 4 digits, if the account has one')
    .option('--json', 'print one JSON object')
    .action(async (options: SetOptions) => {
      const identity = identityOf(options);
      if (options.clientSecretFile === undefined && options.tokenAuth === 'basic') {
        fail('--client-secret-file is required (a PSP that takes no secret is set with --token-auth body)');
      }
      const clientSecret =
        options.clientSecretFile === undefined
          ? ''
          : readOrExit(options.clientSecretFile, '--client-secret-file').toString('utf8');
      const caPem = options.ca === undefined ? undefined : readOrExit(options.ca, '--ca').toString('utf8');
      await withDatabase(async ({ kysely }, config) => {
        let row;
        try {
          row = await kysely.transaction().execute(async (trx) => {
            const saved = await saveProviderSettings(trx, createSecretBox(config.secret), {
              storeId: options.store,
              baseUrl: options.baseUrl,
              tokenUrl: options.tokenUrl,
              clientId: options.clientId,
              clientSecret,
              identity,
              caPem,
              tokenRequest: {
                scope: options.scope ?? null,
                auth: options.tokenAuth,
                format: options.tokenFormat,
                params: parseTokenParams(options.tokenParam),
              },
              account: { account: options.account, accountType: options.accountType, branch: options.branch },
            });
            await recordAudit(
              trx,
              saved.store_id,
              CLI,
              'psp_settings_changed',
              `${saved.base_url} (Client ID ${saved.client_id})`,
            );
            return saved;
          });
        } catch (error) {
          return fail((error as Error).message);
        }
        const shown = describeProvider(row);
        if (shown.receiving_account === null) {
          warn(
            'No receiving account (--account, --account-type): live subscriptions are refused until it is set, since every Pix Automático cycle charge must name it.',
          );
        }
        print(
          !!options.json,
          shown,
          `Saved the Pix provider of store ${row.store_id} (${row.base_url}); certificate ${shown.certificate.subject}, valid until ${shown.certificate.not_after}. Next: pix-provider check, then register-webhook.`,
        );
      });
    });

  command
    .command('show')
    .description("print a store's PSP settings (never a secret)")
    .requiredOption('--store <store_id>', 'the store')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; json?: boolean }) => {
      await withDatabase(async ({ kysely }) => {
        const row = await findProviderSettings(kysely, options.store);
        if (!row) fail(`store ${options.store} has no Pix provider`);
        const shown = describeProvider(row);
        print(!!options.json, shown, JSON.stringify(shown, null, 2));
      });
    });

  command
    .command('check')
    .description("get a token and list the last minute's charges at the PSP")
    .requiredOption('--store <store_id>', 'the store')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; json?: boolean }) => {
      await withProviders(async (_db, payments) => {
        const charges = await checkProvider(payments, options.store);
        print(
          !!options.json,
          { ok: true, charges_last_minute: charges },
          `The PSP answered: ${charges} charge(s) in the last minute.`,
        );
      });
    });

  command
    .command('register-webhook')
    .description(
      'register <STOREFRONT_PUBLIC_URL>/callbacks/pix/<fresh token> at the PSP (the previous URL stops working)',
    )
    .requiredOption('--store <store_id>', 'the store')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; json?: boolean }) => {
      await withProviders(async ({ kysely }, payments, config) => {
        const { webhookUrl, recurring } = await registerWebhook(
          kysely,
          payments,
          options.store,
          config.publicUrl,
        );
        if (!recurring) {
          warn(
            'The PSP does not offer Pix Automático to these credentials (it refused PUT /webhookrec or /webhookcobr): live subscriptions will not work until it does; plain Pix charges are registered.',
          );
        }
        print(
          !!options.json,
          { webhook_url: webhookUrl, pix_automatico: recurring },
          `Registered ${webhookUrl} (shown once) for Pix${recurring ? ' and Pix Automático (rec, cobr)' : ''}.`,
        );
      });
    });

  command
    .command('remove')
    .description("delete a store's PSP settings (its live keys then get provider_not_configured)")
    .requiredOption('--store <store_id>', 'the store')
    .option('--json', 'print one JSON object')
    .action(async (options: { store: string; json?: boolean }) => {
      await withDatabase(async ({ kysely }) => {
        const removed = await kysely.transaction().execute(async (trx) => {
          const done = await removeProviderSettings(trx, options.store);
          if (done) await recordAudit(trx, options.store, CLI, 'psp_settings_changed', 'removidas');
          return done;
        });
        if (!removed) fail(`store ${options.store} has no Pix provider`);
        const store = await findStore(kysely, options.store);
        if (store?.checkout_mode === 'live') {
          console.error(
            `storefront: store ${options.store} is in live checkout mode: its purchase pages now refuse ` +
              `orders; run \`storefront stores update ${options.store} --checkout-mode test\` or set a provider again`,
          );
        }
        print(
          !!options.json,
          { store_id: options.store, removed: true },
          `Removed the Pix provider of store ${options.store}.`,
        );
      });
    });
}
