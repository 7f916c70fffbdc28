import type { CardAcceptance } from '../../domain/payments/card-settings/card-provider-settings.js';
import { widenCsp } from '../../platform/html/page-security.js';

/**
 * The PSP scripts a product page loads to turn the buyer's card into a single-use token, in the
 * buyer's browser: the card number goes to the PSP, never to this service. Each comes with the
 * origins its documentation lists for a page's CSP; only the product pages of a store using that PSP
 * get them.
 */
export interface CardScript {
  src: string;
  csp: { 'script-src': string[]; 'frame-src': string[]; 'connect-src': string[] };
}

export const CARD_SCRIPTS: Record<'mercadopago' | 'pagarme', CardScript> = {
  // MercadoPago.js v2: Secure Fields are iframes served by api-static; the script calls the API (card
  // tokens, payment methods, issuers, installments) and its fraud-prevention device fingerprint.
  mercadopago: {
    src: 'https://sdk.mercadopago.com/js/v2',
    csp: {
      'script-src': ['https://sdk.mercadopago.com', 'https://http2.mlstatic.com'],
      'frame-src': ['https://api-static.mercadopago.com', 'https://www.mercadolibre.com'],
      'connect-src': [
        'https://api.mercadopago.com',
        'https://api.mercadolibre.com',
        'https://events.mercadopago.com',
      ],
    },
  },
  // Pagar.me's tokenizecard.js reads the form's own fields and asks the Core API for a token.
  pagarme: {
    src: 'https://checkout.pagar.me/v1/tokenizecard.js',
    csp: {
      'script-src': ['https://checkout.pagar.me'],
      'frame-src': [],
      'connect-src': ['https://api.pagar.me'],
    },
  },
};

/** The card script a store's page loads, or null (the simulated provider loads none). */
export const cardScriptOf = (acceptance: CardAcceptance | null): CardScript | null =>
  acceptance === null || acceptance.provider === 'simulated' ? null : CARD_SCRIPTS[acceptance.provider];

/** The page's CSP with its card script's origins; unchanged without one. */
export const withCardScriptCsp = (csp: string, script: CardScript | null): string =>
  script === null ? csp : widenCsp(csp, script.csp);
