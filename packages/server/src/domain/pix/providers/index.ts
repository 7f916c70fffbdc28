import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { liveProvidersOf } from '../live/live-providers.js';
import type { PixProvider } from './pix-provider.js';
import { simulatedProvider } from './simulated-provider.js';

export type { PixProvider } from './pix-provider.js';
export { simulatedProvider } from './simulated-provider.js';

/**
 * The provider for a key's mode: test keys are always served by the simulated provider; live keys
 * by the store's PSP over the API Pix (400 provider_not_configured when the store has none).
 */
export async function pixProviderFor(
  db: Kysely<Database>,
  scope: { storeId: string; livemode: boolean },
): Promise<PixProvider> {
  if (!scope.livemode) return simulatedProvider;
  return liveProvidersOf(db).forStore(scope.storeId);
}
