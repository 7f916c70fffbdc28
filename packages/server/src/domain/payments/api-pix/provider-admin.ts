import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import type { PaymentProviders } from '../payment-providers.js';
import { newCallbackToken, saveRegisteredWebhook } from './provider-settings.js';
import type { PixProvidersTable } from './provider-settings.js';
import { accountOfColumns } from './receiving-account.js';

/** What `pix-provider show` prints: never a secret, the callback token masked. */
export function describeProvider(row: PixProvidersTable) {
  return {
    store_id: row.store_id,
    base_url: row.base_url,
    token_url: row.token_url,
    client_id: row.client_id,
    token_request: {
      scope: row.token_scope,
      auth: row.token_auth,
      format: row.token_format,
      // A value may be a secret: the names only.
      params: Object.keys(JSON.parse(row.token_params) as Record<string, string>),
    },
    certificate: { subject: row.certificate_subject, not_after: row.certificate_not_after },
    // Not a secret: the account cycle charges are paid into (null: live subscriptions are refused).
    receiving_account: accountOfColumns(row),
    webhook_url: row.webhook_url_masked,
    webhook_registered_at: row.webhook_registered_at,
  };
}

export interface RegisteredWebhooks {
  /** The full URL, shown this once. */
  webhookUrl: string;
  /** Whether `PUT /webhookrec` and `PUT /webhookcobr` took it too (false: no Pix Automático). */
  recurring: boolean;
}

/**
 * `PUT /webhook/{chave}` with a fresh callback URL; once the PSP accepted it the new token replaces
 * the previous one. Then the same URL for Pix Automático (`PUT /webhookrec`, `PUT /webhookcobr`): a
 * PSP that does not offer it (404/403) leaves the plain registration standing.
 */
export async function registerWebhook(
  db: Kysely<Database>,
  payments: PaymentProviders,
  storeId: string,
  publicUrl: string,
): Promise<RegisteredWebhooks> {
  const provider = await payments.livePix(storeId);
  const registered = newCallbackToken(publicUrl);
  await provider.registerWebhook(registered.webhookUrl);
  await saveRegisteredWebhook(db, storeId, registered);
  const recurring = await provider.registerRecurringWebhooks(registered.webhookUrl);
  return { webhookUrl: registered.webhookUrl, recurring };
}

/** Gets a token and lists the last minute's charges: proves URL, certificate, credentials and scopes. */
export async function checkProvider(payments: PaymentProviders, storeId: string): Promise<number> {
  const provider = await payments.livePix(storeId);
  return provider.listRecentCharges(60_000);
}
