import type { Kysely } from 'kysely';
import type { Config } from '../../platform/config/config.js';
import type { Database } from '../../platform/db/schema.js';
import { apiPixProviders } from '../../domain/payments/api-pix/api-pix-providers.js';
import type { PaymentProviders } from '../../domain/payments/payment-providers.js';
import { cardProviders } from '../../domain/payments/card-settings/card-providers.js';
import { simulatedPixProvider } from '../../domain/payments/simulated/simulated-pix-provider.js';
import { simulatedRecurringProvider } from '../../domain/payments/simulated/simulated-recurring-provider.js';

/**
 * The payment providers of one process, opened once where it starts (`serve`, an HTTP process, the
 * worker, a CLI command) and closed when it stops. Test keys are always served by the simulated
 * providers; live keys by the store's PSP over the API Pix, kept per store with its connections.
 * Cards differ: each mode may have its own PSP (`card-provider set --mode`), a test one included.
 */
export function openPaymentProviders(
  db: Kysely<Database>,
  config: Pick<
    Config,
    'secret' | 'pspConnectTimeoutMs' | 'pspRequestTimeoutMs' | 'pspAllowedHosts' | 'publicUrl'
  >,
): PaymentProviders {
  const connections = {
    secret: config.secret,
    connectTimeoutMs: config.pspConnectTimeoutMs,
    requestTimeoutMs: config.pspRequestTimeoutMs,
    allowedHosts: config.pspAllowedHosts,
  };
  const livePix = apiPixProviders(db, connections);
  // Cards: the store's PSP for the mode; a test scope without one is simulated, a live one is 400.
  const cards = cardProviders(db, { ...connections, publicUrl: config.publicUrl });
  return {
    pix: async (scope) => (scope.livemode ? livePix.forStore(scope.storeId) : simulatedPixProvider),
    recurring: async (scope) =>
      scope.livemode ? livePix.forStore(scope.storeId) : simulatedRecurringProvider,
    card: (scope) => cards.forScope(scope),
    livePix: (storeId) => livePix.forStore(storeId),
    close: async () => {
      await Promise.all([livePix.close(), cards.close()]);
    },
  };
}
