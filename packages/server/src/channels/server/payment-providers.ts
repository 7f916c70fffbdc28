import type { Kysely } from 'kysely';
import type { Config } from '../../platform/config/config.js';
import type { Database } from '../../platform/db/schema.js';
import { apiPixProviders } from '../../domain/payments/api-pix/api-pix-providers.js';
import type { PaymentProviders } from '../../domain/payments/payment-providers.js';
import { simulatedCardProvider } from '../../domain/payments/simulated/simulated-card-provider.js';
import { cardProviderNotConfigured } from '../../domain/payments/provider-errors.js';
import { simulatedPixProvider } from '../../domain/payments/simulated/simulated-pix-provider.js';
import { simulatedRecurringProvider } from '../../domain/payments/simulated/simulated-recurring-provider.js';

/**
 * The payment providers of one process, opened once where it starts (`serve`, an HTTP process, the
 * worker, a CLI command) and closed when it stops. Test keys are always served by the simulated
 * providers; live keys by the store's PSP over the API Pix, kept per store with its connections.
 */
export function openPaymentProviders(
  db: Kysely<Database>,
  config: Pick<Config, 'secret' | 'pspConnectTimeoutMs' | 'pspRequestTimeoutMs' | 'pspAllowedHosts'>,
): PaymentProviders {
  const livePix = apiPixProviders(db, {
    secret: config.secret,
    connectTimeoutMs: config.pspConnectTimeoutMs,
    requestTimeoutMs: config.pspRequestTimeoutMs,
    allowedHosts: config.pspAllowedHosts,
  });
  return {
    pix: async (scope) => (scope.livemode ? livePix.forStore(scope.storeId) : simulatedPixProvider),
    recurring: async (scope) =>
      scope.livemode ? livePix.forStore(scope.storeId) : simulatedRecurringProvider,
    // Until a store can set a card PSP, test mode is simulated and live mode has none.
    card: async (scope) => {
      if (scope.livemode) throw cardProviderNotConfigured();
      return simulatedCardProvider;
    },
    livePix: (storeId) => livePix.forStore(storeId),
    close: () => livePix.close(),
  };
}
