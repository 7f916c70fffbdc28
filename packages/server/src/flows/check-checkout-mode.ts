import type { Kysely } from 'kysely';
import type { Database } from '../platform/db/schema.js';
import { hasLivePixProvider } from '../domain/payments/api-pix/provider-settings.js';
import type { CheckoutMode } from '../domain/stores/stores.js';

/**
 * Why a store cannot switch to this mode, or null when it can: `live` needs what a live charge needs,
 * the store's PSP settings and its Pix key.
 */
export async function checkoutModeProblem(
  db: Kysely<Database>,
  storeId: string | null,
  mode: CheckoutMode,
): Promise<string | null> {
  if (mode === 'test') return null;
  if (storeId !== null && (await hasLivePixProvider(db, storeId))) return null;
  return (
    '--checkout-mode live needs a live Pix provider configured for the store, and it has none: set its ' +
    'Pix key (`storefront stores update <store_id> --pix-key <chave>`) and its PSP (`storefront ' +
    'pix-provider set --store <store_id> …`) first; keep --checkout-mode test (buyers pay with ' +
    'simulated Pix) until then'
  );
}
