import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { CheckoutMode } from './stores.js';

export const CHECKOUT_MODES: readonly CheckoutMode[] = ['test', 'live'];

export function isCheckoutMode(value: string): value is CheckoutMode {
  return (CHECKOUT_MODES as readonly string[]).includes(value);
}

/**
 * Whether the store can charge buyers for real: `live` checkout mode needs a live Pix provider
 * configured for the store. This service has no live provider yet, so no store has one; when live
 * providers arrive (their per-store settings table), this is the one place that asks them.
 */
export async function hasLivePixProvider(_db: Kysely<Database>, _storeId: string): Promise<boolean> {
  return false;
}

/** Why a store cannot switch to this mode, or null when it can. */
export async function checkoutModeProblem(
  db: Kysely<Database>,
  storeId: string | null,
  mode: CheckoutMode,
): Promise<string | null> {
  if (mode === 'test') return null;
  if (storeId !== null && (await hasLivePixProvider(db, storeId))) return null;
  return (
    '--checkout-mode live needs a live Pix provider configured for the store, and it has none; ' +
    'keep --checkout-mode test (buyers pay with simulated Pix) until one is configured'
  );
}
