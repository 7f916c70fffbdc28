/** Live providers of one kind, one per store, each built from its store's settings and kept. */
export interface StoreProviders<P> {
  /** Throws 400 provider_not_configured when the store has no settings for this kind. */
  forStore(storeId: string): Promise<P>;
  /** Closes every provider's connections; later calls open new ones. */
  close(): Promise<void>;
}

/** A store's settings as read now: `version` changes whenever they do, `build` makes their provider. */
export interface StoreSettings<P> {
  version: string;
  build(): P;
}

/**
 * Keeps each store's provider (with its connections and token) while its settings stay the same; a
 * version changed since (new credentials, a new key) builds a new one and closes the old.
 */
export function storeProviders<P extends { close(): Promise<void> }>(
  settingsOf: (storeId: string) => Promise<StoreSettings<P>>,
): StoreProviders<P> {
  const cache = new Map<string, { version: string; provider: P }>();
  return {
    async forStore(storeId) {
      const settings = await settingsOf(storeId);
      const cached = cache.get(storeId);
      if (cached?.version === settings.version) return cached.provider;
      if (cached) void cached.provider.close();
      const provider = settings.build();
      cache.set(storeId, { version: settings.version, provider });
      return provider;
    },
    async close() {
      const providers = [...cache.values()].map((entry) => entry.provider);
      cache.clear();
      await Promise.all(providers.map((provider) => provider.close()));
    },
  };
}
