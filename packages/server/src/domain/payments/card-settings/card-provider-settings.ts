import { createHash, randomBytes } from 'node:crypto';
import { reusedQuery } from '../../../platform/db/reused-query.js';
import type { Kysely } from 'kysely';
import type { Database, DbBool } from '../../../platform/db/schema.js';
import { fromBool } from '../../../platform/db/schema.js';
import type { SecretBox } from '../../../platform/values/secret-box.js';
import { nowIso } from '../../../platform/values/time.js';
import type { CardProviderName } from '../card-provider.js';
import { operatorHttpsUrl } from '../operator-url.js';
import { DEFAULT_CARD_BASE_URLS, checkCardCredentials } from './card-credentials.js';
import type { CardCredentials, CardPsp } from './card-credentials.js';

/** A store's card PSP for one mode (migration 0029): one row per store and mode. */
export interface CardProvidersTable {
  store_id: string;
  livemode: DbBool;
  provider: CardPsp;
  public_key: string;
  /** Mercado Pago's access token or Pagar.me's secret key, sealed to its row. */
  secret_sealed: string;
  webhook_secret_sealed: string | null;
  base_url: string;
  ca_pem: string | null;
  /** The notification URL's token: sealed so `show` prints it whole, hashed so a callback finds it. */
  callback_token_sealed: string;
  callback_token_hash: string;
  created_at: string;
  updated_at: string;
}

declare module '../../../platform/db/schema.js' {
  interface Tables {
    card_providers: CardProvidersTable;
  }
}

export interface CardProviderInput extends CardCredentials {
  storeId: string;
  livemode: boolean;
  provider: CardPsp;
  /** The PSP's API; its documented address when not given. */
  baseUrl?: string | undefined;
  caPem?: string | undefined;
}

export const modeName = (livemode: boolean) => (livemode ? 'live' : 'test');

/** Every secret is sealed with the row and field it belongs to, so a value copied elsewhere does not open. */
const sealedFor = (storeId: string, livemode: boolean, field: string) =>
  `card_providers:${storeId}:${modeName(livemode)}:${field}`;

export const hashCardCallbackToken = (token: string): string =>
  createHash('sha256').update(token).digest('hex');

/**
 * Checks and stores a store's card PSP for one mode, replacing the earlier one. The callback token is
 * made once, with the first settings, and kept when they are replaced: the seller pasted its URL into
 * the PSP's panel. Throws an Error (CardCredentialError for a credential) naming the CLI's option;
 * nothing is written then.
 */
export async function saveCardProviderSettings(
  db: Kysely<Database>,
  box: SecretBox,
  input: CardProviderInput,
): Promise<CardProvidersTable> {
  const baseUrl = operatorHttpsUrl(input.baseUrl ?? DEFAULT_CARD_BASE_URLS[input.provider], '--base-url');
  const credentials = checkCardCredentials(input.provider, input.livemode, input);
  if (input.caPem !== undefined && !input.caPem.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error('--ca is not a PEM certificate (-----BEGIN CERTIFICATE-----)');
  const store = await db.selectFrom('stores').select('id').where('id', '=', input.storeId).executeTakeFirst();
  if (!store) throw new Error(`no store with id ${input.storeId}`);
  const seal = (value: string, field: string) =>
    box.seal(value, sealedFor(input.storeId, input.livemode, field));
  const now = nowIso();
  const values = {
    provider: input.provider,
    public_key: credentials.publicKey,
    secret_sealed: seal(credentials.secret, 'secret'),
    webhook_secret_sealed:
      credentials.webhookSecret === null ? null : seal(credentials.webhookSecret, 'webhook_secret'),
    base_url: baseUrl,
    ca_pem: input.caPem ?? null,
    updated_at: now,
  };
  const token = randomBytes(32).toString('base64url');
  await db
    .insertInto('card_providers')
    .values({
      store_id: input.storeId,
      livemode: fromBool(input.livemode),
      ...values,
      callback_token_sealed: seal(token, 'callback_token'),
      callback_token_hash: hashCardCallbackToken(token),
      created_at: now,
    })
    .onConflict((oc) => oc.columns(['store_id', 'livemode']).doUpdateSet(values))
    .execute();
  return (await findCardProviderSettings(db, input.storeId, input.livemode))!;
}

export function findCardProviderSettings(db: Kysely<Database>, storeId: string, livemode: boolean) {
  return db
    .selectFrom('card_providers')
    .selectAll()
    .where('store_id', '=', storeId)
    .where('livemode', '=', fromBool(livemode))
    .executeTakeFirst();
}

export async function removeCardProviderSettings(
  db: Kysely<Database>,
  storeId: string,
  livemode: boolean,
): Promise<boolean> {
  const result = await db
    .deleteFrom('card_providers')
    .where('store_id', '=', storeId)
    .where('livemode', '=', fromBool(livemode))
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

/** The secrets opened for the adapter; only ever held in memory. */
export function cardSecretsOf(
  box: SecretBox,
  row: CardProvidersTable,
): { secret: string; webhookSecret: string | null } {
  const open = (sealed: string, field: string) =>
    box.open(sealed, sealedFor(row.store_id, row.livemode === 1, field));
  return {
    secret: open(row.secret_sealed, 'secret'),
    webhookSecret:
      row.webhook_secret_sealed === null ? null : open(row.webhook_secret_sealed, 'webhook_secret'),
  };
}

/** `<public URL>/callbacks/card/<token>`: where the PSP sends its notifications for this store and mode. */
export function cardNotificationUrl(box: SecretBox, row: CardProvidersTable, publicUrl: string): string {
  const token = box.open(
    row.callback_token_sealed,
    sealedFor(row.store_id, row.livemode === 1, 'callback_token'),
  );
  return `${publicUrl}/callbacks/card/${token}`;
}

/** Whose notification arrived at `/callbacks/card/<token>`; undefined for a token no store has. */
export async function findCardProviderByCallbackToken(
  db: Kysely<Database>,
  token: string,
): Promise<{ storeId: string; livemode: boolean; provider: CardPsp } | undefined> {
  const row = await db
    .selectFrom('card_providers')
    .select(['store_id', 'livemode', 'provider'])
    .where('callback_token_hash', '=', hashCardCallbackToken(token))
    .executeTakeFirst();
  return row && { storeId: row.store_id, livemode: row.livemode === 1, provider: row.provider };
}

/** What the purchase page needs to offer cards: which provider's script and its public key. */
export interface CardAcceptance {
  provider: CardProviderName;
  publicKey: string | null;
}

/**
 * Whether the store takes cards in this mode, without building a client: test mode always does (its
 * own test PSP when set, else the simulated provider); live mode only with a live PSP set.
 */
const selectAcceptance = reusedQuery(
  'select card acceptance',
  (db: Kysely<Database>, storeId: string, livemode: DbBool) =>
    db
      .selectFrom('card_providers')
      .select(['provider', 'public_key'])
      .where('store_id', '=', storeId)
      .where('livemode', '=', livemode),
);

export async function cardAcceptance(
  db: Kysely<Database>,
  storeId: string,
  livemode: boolean,
): Promise<CardAcceptance | null> {
  const row = (await selectAcceptance(db, storeId, fromBool(livemode))).rows[0];
  if (row) return { provider: row.provider, publicKey: row.public_key };
  return livemode ? null : { provider: 'simulated', publicKey: null };
}
