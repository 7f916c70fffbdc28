import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { createSecretBox } from '../../../platform/values/secret-box.js';
import { apiPixClient } from './api-pix-client.js';
import { apiPixProvider } from './api-pix-provider.js';
import type { LivePixProvider } from './api-pix-provider.js';
import { createApiPixTransport } from './api-pix-transport.js';
import type { TransportTimeouts } from './api-pix-transport.js';
import { providerNotConfigured } from './provider-errors.js';
import { credentialsOf, findLiveSettings } from './provider-settings.js';
import { accountOfColumns } from './receiving-account.js';

/** The live provider of each store, built from its settings and kept (with its connections and token). */
export interface LiveProviders {
  /** Throws 400 provider_not_configured when the store has no settings (or no Pix key). */
  forStore(storeId: string): Promise<LivePixProvider>;
  /** Closes every PSP connection; later calls open new ones. */
  close(): Promise<void>;
}

export interface LiveProvidersOptions extends TransportTimeouts {
  /** STOREFRONT_SECRET, which seals the credentials at rest. */
  secret: string;
}

function createLiveProviders(db: Kysely<Database>, options: LiveProvidersOptions): LiveProviders {
  const box = createSecretBox(options.secret);
  // Keyed by store; a row changed since (pix-provider set, a new Pix key) builds a new provider.
  const cache = new Map<string, { version: string; provider: LivePixProvider }>();

  return {
    async forStore(storeId) {
      const row = await findLiveSettings(db, storeId);
      if (!row || row.pix_key === null) throw providerNotConfigured();
      const version = `${row.updated_at}|${row.pix_key}`;
      const cached = cache.get(storeId);
      if (cached?.version === version) return cached.provider;
      if (cached) void cached.provider.close();
      const transport = createApiPixTransport(credentialsOf(box, row), options);
      const provider = apiPixProvider(apiPixClient(transport), row.pix_key, accountOfColumns(row));
      cache.set(storeId, { version, provider });
      return provider;
    },
    async close() {
      const providers = [...cache.values()].map((entry) => entry.provider);
      cache.clear();
      await Promise.all(providers.map((provider) => provider.close()));
    },
  };
}

/**
 * The registry each database handle uses, attached once by whoever opens the service (the app, the
 * worker, the CLI). Charge creation keeps its (db, scope, body) signature for every caller.
 */
const registries = new WeakMap<Kysely<Database>, LiveProviders>();

export function attachLiveProviders(db: Kysely<Database>, options: LiveProvidersOptions): LiveProviders {
  let providers = registries.get(db);
  if (!providers) {
    providers = createLiveProviders(db, options);
    registries.set(db, providers);
  }
  return providers;
}

export function liveProvidersOf(db: Kysely<Database>): LiveProviders {
  const providers = registries.get(db);
  if (!providers) throw new Error('no live Pix providers attached to this database handle');
  return providers;
}
