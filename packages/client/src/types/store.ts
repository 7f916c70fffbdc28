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
}
