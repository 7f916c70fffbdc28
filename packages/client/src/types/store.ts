/** The abandoned-order e-mail of a store (API 1.2.0). */
export interface StoreRecoveryEmail {
  enabled: boolean;
  /** Minutes after the abandonment, 15 to 10080. */
  delay_minutes: number;
  /** Placeholders: `{{nome}}`, `{{produto}}`, `{{valor}}`, `{{link_pagamento}}`, `{{loja}}`. */
  subject: string;
  body: string;
}

export interface StoreMetaConversions {
  pixel_id: string;
  /** The access token is write-only: this says one is kept. */
  access_token_set: boolean;
  test_event_code: string | null;
  browser_pixel: boolean;
}

/** The installments a store offers on card payments (API 1.3.0). */
export interface StoreCardSettings {
  /** 1 to 12; default 12. */
  max_installments: number;
  /** Up to this many installments the buyer pays no interest: 1 to `max_installments`; default 1. */
  interest_free_installments: number;
  /** Percent a month, 0 to 10, for the price table past the interest-free options; default 2.99. */
  monthly_interest_rate: number;
  /** BRL: an option whose installment is below it is not offered (1x always is); default 5.00. */
  min_installment_amount: number;
}

/** The API key's store and its settings (API 1.2.0). */
export interface Store {
  object: 'store';
  id: string;
  name: string;
  handle: string;
  checkout_mode: 'test' | 'live';
  /** IANA time zone the store's days are counted in. */
  timezone: string;
  recovery_email: StoreRecoveryEmail;
  conversions: { meta: StoreMetaConversions | null };
  /** Card installments (API 1.3.0). */
  card: StoreCardSettings;
}

/** Only the fields sent change. */
export interface StoreUpdateParams {
  name?: string;
  /** An IANA time zone name, such as `America/Sao_Paulo`. */
  timezone?: string;
  recovery_email?: {
    enabled?: boolean;
    delay_minutes?: number;
    /** null restores the default wording. */
    subject?: string | null;
    body?: string | null;
  };
  conversions?: {
    /** null removes Meta conversions and the token. */
    meta?: {
      /** Required the first time. */
      pixel_id?: string;
      /** Write-only; required the first time, omit it to keep the one set. */
      access_token?: string;
      test_event_code?: string | null;
      browser_pixel?: boolean;
    } | null;
  };
  /** Card installments (API 1.3.0); only the keys sent change. */
  card?: Partial<StoreCardSettings>;
}
