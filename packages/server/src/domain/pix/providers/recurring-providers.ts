import type { Kysely } from 'kysely';
import type { Database } from '../../../platform/db/schema.js';
import { ApiError } from '../../../platform/http/api-error.js';
import { liveProvidersOf } from '../live/live-providers.js';
import type { RecurringPixProvider } from './recurring-provider.js';
import { simulatedRecurringProvider } from './simulated-recurring-provider.js';

function offersPixAutomatico(provider: object): provider is RecurringPixProvider {
  return 'createSubscriptionCharge' in provider && 'scheduleCycleCharge' in provider;
}

/**
 * The Pix Automático provider for a mode: test keys are served by the simulated one; live keys by the
 * store's PSP over the API Pix (400 provider_not_configured when the store has none, or when this
 * service's live provider does not speak Pix Automático).
 */
export async function recurringProviderFor(
  db: Kysely<Database>,
  scope: { storeId: string; livemode: boolean },
): Promise<RecurringPixProvider> {
  if (!scope.livemode) return simulatedRecurringProvider;
  const live = await liveProvidersOf(db).forStore(scope.storeId);
  if (offersPixAutomatico(live)) return live;
  throw new ApiError(
    400,
    'provider_not_configured',
    'This store’s live Pix provider does not offer Pix Automático, so live subscriptions cannot be created or billed; use a test key (sk_test_…).',
  );
}
