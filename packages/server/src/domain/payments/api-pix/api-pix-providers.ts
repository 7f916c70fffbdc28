import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { createSecretBox } from '../../../platform/values/secret-box.js';
import type { LivePixProvider } from '../live-pix-provider.js';
import { providerNotConfigured } from '../provider-errors.js';
import { storeProviders } from '../store-providers.js';
import type { StoreProviders } from '../store-providers.js';
import { apiPixClient } from './api-pix-client.js';
import { apiPixProvider } from './api-pix-provider.js';
import { createApiPixTransport } from './api-pix-transport.js';
import type { TransportOptions } from './api-pix-transport.js';
import { credentialsOf, findLiveSettings } from './provider-settings.js';
import { accountOfColumns } from './receiving-account.js';

export interface ApiPixProvidersOptions extends TransportOptions {
  /** STOREFRONT_SECRET, which seals the credentials at rest. */
  secret: string;
}

/**
 * Each store's live Pix provider over the API Pix, built from its settings (`pix-provider set`) and
 * its Pix key: 400 provider_not_configured when it has no settings (or no Pix key). A row changed
 * since (pix-provider set, a new Pix key) builds a new provider.
 */
export function apiPixProviders(
  db: Kysely<Database>,
  options: ApiPixProvidersOptions,
): StoreProviders<LivePixProvider> {
  const box = createSecretBox(options.secret);
  return storeProviders(async (storeId) => {
    const row = await findLiveSettings(db, storeId);
    if (!row || row.pix_key === null) throw providerNotConfigured();
    const chave = row.pix_key;
    return {
      version: `${row.updated_at}|${chave}`,
      build: () =>
        apiPixProvider(
          apiPixClient(createApiPixTransport(credentialsOf(box, row), options)),
          chave,
          accountOfColumns(row),
        ),
    };
  });
}
