import { ApiError } from '../../http/api-error.js';
import type { PixProvider } from './pix-provider.js';
import { simulatedProvider } from './simulated-provider.js';

export type { PixProvider } from './pix-provider.js';
export { simulatedProvider } from './simulated-provider.js';

/**
 * The provider for a key's mode: test keys are always served by the simulated provider. No live
 * provider exists yet, so live keys are told so (503, retryable once one is configured).
 */
export function pixProviderFor(livemode: boolean): PixProvider {
  if (!livemode) return simulatedProvider;
  throw new ApiError(
    503,
    'provider_unavailable',
    'No live Pix provider is configured for this service, so live keys cannot create or refund Pix payments yet. Use a test key (sk_test_…) to simulate them.',
  );
}
