import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import type { SecretBox } from '../../../platform/values/secret-box.js';
import { nowIso } from '../../../platform/values/time.js';
import { operatorHttpsUrl } from '../operator-url.js';
import type { ApiPixCredentials } from './api-pix-transport.js';
import { inspectClientIdentity } from './client-certificate.js';
import { STANDARD_TOKEN_REQUEST, checkScope } from './token-request.js';
import type { TokenAuth, TokenFormat, TokenRequestShape } from './token-request.js';
import type { ClientIdentity } from './client-certificate.js';
import { accountColumns, checkReceivingAccount } from './receiving-account.js';
import type { ReceivingAccountColumns, ReceivingAccountInput } from './receiving-account.js';

export interface PixProvidersTable extends ReceivingAccountColumns {
  store_id: string;
  base_url: string;
  token_url: string;
  client_id: string;
  client_secret_sealed: string;
  certificate_pem: string;
  private_key_sealed: string | null;
  pfx_sealed: string | null;
  passphrase_sealed: string | null;
  ca_pem: string | null;
  certificate_subject: string;
  certificate_not_after: string;
  callback_token_hash: string | null;
  webhook_url_masked: string | null;
  webhook_registered_at: string | null;
  token_scope: string | null;
  token_auth: TokenAuth;
  token_format: TokenFormat;
  /** JSON of the extra token parameters: name → value sealed (a value may be a secret). */
  token_params: string;
  created_at: string;
  updated_at: string;
}

declare module '../../../platform/db/schema.js' {
  interface Tables {
    pix_providers: PixProvidersTable;
  }
}

export interface ProviderSettingsInput {
  storeId: string;
  baseUrl: string;
  tokenUrl?: string | undefined;
  clientId: string;
  /** Empty only with `tokenRequest.auth` `body`: a PSP that knows the client by its certificate. */
  clientSecret: string;
  identity: ClientIdentity;
  caPem?: string | undefined;
  /** How the token is asked for; the standard's shape (Basic, form, no scope) where not given. */
  tokenRequest?: Partial<TokenRequestShape> | undefined;
  /** The receiving account of cycle charges, as typed; none given stores none. */
  account?: ReceivingAccountInput | undefined;
}

/** Every secret is sealed with the row it belongs to, so a value copied to another store does not open. */
const sealedFor = (storeId: string, field: string) => `pix_providers:${storeId}:${field}`;

/**
 * Checks and stores a store's PSP settings (replacing earlier ones). The base and token URLs are
 * operator configuration: https is required, the webhook target rules do not apply. Throws an Error
 * with a message for the operator; nothing is written then.
 */
export async function saveProviderSettings(
  db: Kysely<Database>,
  box: SecretBox,
  input: ProviderSettingsInput,
): Promise<PixProvidersTable> {
  const baseUrl = operatorHttpsUrl(input.baseUrl, '--base-url');
  const tokenUrl = operatorHttpsUrl(input.tokenUrl ?? `${baseUrl}/oauth/token`, '--token-url');
  const store = await db
    .selectFrom('stores')
    .select('pix_key')
    .where('id', '=', input.storeId)
    .executeTakeFirst();
  if (!store) throw new Error(`no store with id ${input.storeId}`);
  if (store.pix_key === null) {
    throw new Error(
      `store ${input.storeId} has no Pix key: set it first with \`storefront stores update ${input.storeId} --pix-key <chave>\``,
    );
  }
  const tokenRequest = { ...STANDARD_TOKEN_REQUEST, ...input.tokenRequest };
  if (input.clientId.trim() === '') throw new Error('--client-id must not be empty');
  if (input.clientSecret.trim() === '' && tokenRequest.auth === 'basic') {
    throw new Error(
      'the client secret must not be empty (a PSP that takes no secret is set with --token-auth body)',
    );
  }
  const scope = tokenRequest.scope === null ? null : checkScope(tokenRequest.scope);
  const account = checkReceivingAccount(input.account ?? {});
  const certificate = inspectClientIdentity(input.identity);
  const seal = (value: string, field: string) => box.seal(value, sealedFor(input.storeId, field));
  const now = nowIso();
  const { identity } = input;
  const values = {
    base_url: baseUrl,
    token_url: tokenUrl,
    client_id: input.clientId.trim(),
    client_secret_sealed: seal(input.clientSecret.trim(), 'client_secret'),
    certificate_pem: certificate.certificatePem,
    private_key_sealed: identity.keyPem === undefined ? null : seal(identity.keyPem, 'private_key'),
    pfx_sealed: identity.pfx === undefined ? null : seal(identity.pfx.toString('base64'), 'pfx'),
    passphrase_sealed: identity.passphrase == null ? null : seal(identity.passphrase, 'passphrase'),
    ca_pem: input.caPem ?? null,
    certificate_subject: certificate.subject,
    certificate_not_after: certificate.notAfter,
    token_scope: scope,
    token_auth: tokenRequest.auth,
    token_format: tokenRequest.format,
    token_params: JSON.stringify(
      Object.fromEntries(
        Object.entries(tokenRequest.params).map(([name, value]) => [
          name,
          seal(value, `token_param:${name}`),
        ]),
      ),
    ),
    ...accountColumns(account),
    updated_at: now,
  };
  await db
    .insertInto('pix_providers')
    .values({
      store_id: input.storeId,
      ...values,
      callback_token_hash: null,
      webhook_url_masked: null,
      webhook_registered_at: null,
      created_at: now,
    })
    .onConflict((oc) => oc.column('store_id').doUpdateSet(values))
    .execute();
  return (await findProviderSettings(db, input.storeId))!;
}

export function findProviderSettings(db: Kysely<Database>, storeId: string) {
  return db.selectFrom('pix_providers').selectAll().where('store_id', '=', storeId).executeTakeFirst();
}

/** A store's settings with its Pix key: both are needed before a live charge can be made. */
export function findLiveSettings(db: Kysely<Database>, storeId: string) {
  return db
    .selectFrom('pix_providers')
    .innerJoin('stores', 'stores.id', 'pix_providers.store_id')
    .selectAll('pix_providers')
    .select('stores.pix_key')
    .where('pix_providers.store_id', '=', storeId)
    .executeTakeFirst();
}

/** Whether live Pix charges can be made for the store: provider settings saved and a Pix key set. */
export async function hasLivePixProvider(db: Kysely<Database>, storeId: string): Promise<boolean> {
  const row = await findLiveSettings(db, storeId);
  return row !== undefined && row.pix_key !== null;
}

export async function removeProviderSettings(db: Kysely<Database>, storeId: string): Promise<boolean> {
  const result = await db.deleteFrom('pix_providers').where('store_id', '=', storeId).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The secrets opened for the transport; only ever held in memory. */
export function credentialsOf(box: SecretBox, row: PixProvidersTable): ApiPixCredentials {
  const open = (sealed: string, field: string) => box.open(sealed, sealedFor(row.store_id, field));
  return {
    baseUrl: row.base_url,
    tokenUrl: row.token_url,
    clientId: row.client_id,
    clientSecret: open(row.client_secret_sealed, 'client_secret'),
    tls:
      row.pfx_sealed !== null
        ? {
            pfx: Buffer.from(open(row.pfx_sealed, 'pfx'), 'base64'),
            passphrase: row.passphrase_sealed === null ? null : open(row.passphrase_sealed, 'passphrase'),
          }
        : { cert: row.certificate_pem, key: open(row.private_key_sealed!, 'private_key') },
    ca: row.ca_pem,
    tokenRequest: {
      scope: row.token_scope,
      auth: row.token_auth,
      format: row.token_format,
      params: Object.fromEntries(
        Object.entries(JSON.parse(row.token_params) as Record<string, string>).map(([name, sealed]) => [
          name,
          open(sealed, `token_param:${name}`),
        ]),
      ),
    },
  };
}

export const hashCallbackToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A fresh callback token (256 random bits) and the webhook URL built on it; shown once, kept hashed. */
export function newCallbackToken(publicUrl: string): { token: string; webhookUrl: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, webhookUrl: `${publicUrl}/callbacks/pix/${token}` };
}

/**
 * Called once the PSP accepted the webhook URL: the new token replaces the previous one, which stops
 * working at once (only its hash is kept; `show` prints the URL with the token masked).
 */
export async function saveRegisteredWebhook(
  db: Kysely<Database>,
  storeId: string,
  registered: { token: string; webhookUrl: string },
): Promise<void> {
  await db
    .updateTable('pix_providers')
    .set({
      callback_token_hash: hashCallbackToken(registered.token),
      webhook_url_masked: registered.webhookUrl.replace(registered.token, `${registered.token.slice(0, 4)}…`),
      webhook_registered_at: nowIso(),
    })
    .where('store_id', '=', storeId)
    .execute();
}

export function findStoreByCallbackToken(db: Kysely<Database>, token: string) {
  return db
    .selectFrom('pix_providers')
    .select('store_id')
    .where('callback_token_hash', '=', hashCallbackToken(token))
    .executeTakeFirst();
}
