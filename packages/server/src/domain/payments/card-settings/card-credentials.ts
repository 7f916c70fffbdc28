/** The card PSPs a store can set up; `simulated` serves test mode without one. */
export const CARD_PSPS = ['mercadopago', 'pagarme'] as const;
export type CardPsp = (typeof CARD_PSPS)[number];

export const isCardPsp = (value: string): value is CardPsp =>
  (CARD_PSPS as readonly string[]).includes(value);

export const CARD_PSP_LABELS: Record<CardPsp, string> = { mercadopago: 'Mercado Pago', pagarme: 'Pagar.me' };

/** Where each PSP's API answers unless the operator points elsewhere (a sandbox proxy, a test double). */
export const DEFAULT_CARD_BASE_URLS: Record<CardPsp, string> = {
  mercadopago: 'https://api.mercadopago.com',
  pagarme: 'https://api.pagar.me/core/v5',
};

/** Which credential a refusal is about. */
export type CardCredentialField = 'secret' | 'public_key' | 'webhook_secret';

/**
 * Why a credential was refused: `empty`, `malformed` (not the PSP's documented shape),
 * `other_mode` (its prefix names the other mode: a test key would fail live charges, and a live key in
 * test mode would charge real cards), `same_as_secret` (the public key is printed on the purchase page).
 */
export type CardCredentialProblem = 'empty' | 'malformed' | 'other_mode' | 'same_as_secret';

/** A refused credential; the message names the CLI's option, the dashboard words it from field and problem. */
export class CardCredentialError extends Error {
  constructor(
    readonly field: CardCredentialField,
    readonly problem: CardCredentialProblem,
    message: string,
  ) {
    super(message);
    this.name = 'CardCredentialError';
  }
}

export interface CardCredentials {
  /** Mercado Pago's access token, or Pagar.me's secret key. */
  secret: string;
  publicKey: string;
  /** Mercado Pago's webhook signature secret; Pagar.me has none. */
  webhookSecret: string | null;
}

/** The CLI options each credential comes from, for messages an operator can act on. */
export const CREDENTIAL_OPTIONS: Record<CardPsp, Record<CardCredentialField, string>> = {
  mercadopago: {
    secret: '--access-token-file',
    public_key: '--public-key',
    webhook_secret: '--webhook-secret-file',
  },
  pagarme: {
    secret: '--secret-key-file',
    public_key: '--public-key',
    webhook_secret: '--webhook-secret-file',
  },
};

/**
 * Each credential's documented prefixes by mode. Mercado Pago's access tokens and public keys begin
 * `TEST-` (test) or `APP_USR-` (production); Pagar.me's secret keys `sk_test_` / `sk_` and public keys
 * `pk_test_` / `pk_`. The test prefix is checked first: `sk_test_…` also begins `sk_`.
 */
export const CREDENTIAL_PREFIXES: Record<
  CardPsp,
  Record<'secret' | 'public_key', { test: string; live: string }>
> = {
  mercadopago: {
    secret: { test: 'TEST-', live: 'APP_USR-' },
    public_key: { test: 'TEST-', live: 'APP_USR-' },
  },
  pagarme: {
    secret: { test: 'sk_test_', live: 'sk_' },
    public_key: { test: 'pk_test_', live: 'pk_' },
  },
};

/** Printable ASCII without spaces: what every PSP's keys are made of. */
const TOKEN_CHARACTERS = /^[\x21-\x7e]{1,500}$/;

function modeOf(psp: CardPsp, field: 'secret' | 'public_key', value: string): 'test' | 'live' | null {
  const prefixes = CREDENTIAL_PREFIXES[psp][field];
  if (value.startsWith(prefixes.test)) return 'test';
  if (value.startsWith(prefixes.live)) return 'live';
  return null;
}

/**
 * Trims and checks a store's credentials for one mode; throws CardCredentialError naming the option.
 * Nothing here reaches the PSP: `card-provider check` does that.
 */
export function checkCardCredentials(psp: CardPsp, livemode: boolean, raw: CardCredentials): CardCredentials {
  const options = CREDENTIAL_OPTIONS[psp];
  const mode = livemode ? 'live' : 'test';
  const credentials = {
    secret: raw.secret.trim(),
    publicKey: raw.publicKey.trim(),
    webhookSecret: raw.webhookSecret === null ? null : raw.webhookSecret.trim(),
  };
  const token = (field: 'secret' | 'public_key', value: string) => {
    const option = options[field];
    if (value === '') throw new CardCredentialError(field, 'empty', `${option} must not be empty`);
    const prefixes = CREDENTIAL_PREFIXES[psp][field];
    const found = TOKEN_CHARACTERS.test(value) ? modeOf(psp, field, value) : null;
    if (found === null) {
      throw new CardCredentialError(
        field,
        'malformed',
        `${option} is not a ${psp} credential: it must begin with ${prefixes.test} (test) or ${prefixes.live} (live), without spaces`,
      );
    }
    if (found !== mode) {
      throw new CardCredentialError(
        field,
        'other_mode',
        `${option} is a ${found} credential (it begins with ${prefixes[found]}) but --mode is ${mode}: give the ${mode} one (${prefixes[mode]}…)`,
      );
    }
  };
  token('secret', credentials.secret);
  token('public_key', credentials.publicKey);
  if (credentials.publicKey === credentials.secret) {
    throw new CardCredentialError(
      'public_key',
      'same_as_secret',
      `${options.public_key} is the same as the secret: the public key is shown on the purchase page, so give the public one`,
    );
  }
  if (credentials.webhookSecret !== null) {
    if (psp !== 'mercadopago') {
      throw new CardCredentialError(
        'webhook_secret',
        'malformed',
        `${options.webhook_secret} is for Mercado Pago only: Pagar.me notifications carry no signature`,
      );
    }
    if (!TOKEN_CHARACTERS.test(credentials.webhookSecret)) {
      throw new CardCredentialError(
        'webhook_secret',
        credentials.webhookSecret === '' ? 'empty' : 'malformed',
        `${options.webhook_secret} must hold the secret signature Mercado Pago shows, without spaces`,
      );
    }
  }
  return credentials;
}
