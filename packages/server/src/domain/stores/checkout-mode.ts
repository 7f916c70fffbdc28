import type { CheckoutMode } from './stores.js';

export const CHECKOUT_MODES: readonly CheckoutMode[] = ['test', 'live'];

export function isCheckoutMode(value: string): value is CheckoutMode {
  return (CHECKOUT_MODES as readonly string[]).includes(value);
}
