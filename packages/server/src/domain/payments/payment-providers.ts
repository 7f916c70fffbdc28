import type { CardProvider } from './card-provider.js';
import type { LivePixProvider } from './live-pix-provider.js';
import type { PixProvider } from './pix-provider.js';
import type { RecurringPixProvider } from './recurring-provider.js';

/** Whose money and which mode: a key's store, and whether the key is live. */
export interface ProviderScope {
  storeId: string;
  livemode: boolean;
}

/**
 * The one registry of payment providers, opened by whoever runs the service (the app, the node's
 * duties, the worker, the CLI: `openPaymentProviders` in channels/server) and handed to the flows
 * that charge, cancel, refund and bill. Each way to pay is one lookup here, every adapter of it
 * behind its port: test keys are always served by the simulated provider, live keys by the store's
 * PSP (400 provider_not_configured when it has none).
 */
export interface PaymentProviders {
  /** Immediate Pix charges (`cob`) and their refunds. */
  pix(scope: ProviderScope): Promise<PixProvider>;
  /** Pix Automático: the authorisation and its cycle charges. */
  recurring(scope: ProviderScope): Promise<RecurringPixProvider>;
  /**
   * Card payments (API 1.3.0): the store's card PSP for the mode; a test scope without a test PSP
   * gets the simulated provider, a live one without a live PSP 400 provider_not_configured.
   */
  card(scope: ProviderScope): Promise<CardProvider>;
  /** The store's live Pix PSP itself: what the reconciler reads and the operator's setup calls. */
  livePix(storeId: string): Promise<LivePixProvider>;
  /** Closes every PSP connection; later lookups open new ones. */
  close(): Promise<void>;
}
