import { ApiError } from '../../platform/http/api-error.js';

/** Which charge attempt met a PSP failure, for the operator's log: identifiers only, never a secret. */
export interface ChargeAttempt {
  /** The purchase-page order the charge was for. */
  orderId?: string;
  /** The charge id it would have had, and the txid sent to the PSP (what the PSP's support can look up). */
  chargeId?: string;
  txid?: string;
}

/**
 * The PSP failed us (5xx, timeout, refused TLS, a problem+json answer, a malformed reply): 502, with a
 * message naming what the PSP said, so the merchant can act on it. Nothing is written before it.
 */
export class ProviderError extends ApiError {
  constructor(
    message: string,
    /** The PSP's HTTP status, or null when no answer arrived (connection, TLS, timeout). */
    readonly pspStatus: number | null = null,
    /** Filled in on the way up by the layers that know the attempt. */
    public attempt: ChargeAttempt = {},
    /** The outbound address policy refused the PSP's address (private, loopback, link-local…). */
    readonly blockedAddress = false,
  ) {
    super(502, 'provider_error', message);
    this.name = 'ProviderError';
  }
}

/** Not transient: retrying cannot help until an operator configures the store's PSP. */
export function providerNotConfigured(): ApiError {
  return new ApiError(
    400,
    'provider_not_configured',
    'This store has no live Pix provider configured, so live keys cannot create, cancel or refund Pix payments. An operator sets one up with `storefront pix-provider set --store <store_id> …`; until then use a test key (sk_test_…).',
  );
}

/**
 * A live store whose PSP settings lack the receiving account: every cycle charge must name it
 * (`recebedor`), so no subscription can be created or billed until an operator sets it.
 */
export function receivingAccountMissing(): ApiError {
  return new ApiError(
    400,
    'provider_not_configured',
    'This store’s live Pix provider has no receiving account, which every Pix Automático cycle charge must name, so live subscriptions cannot be created or billed. An operator sets it with `storefront pix-provider set --store <store_id> … --account <conta> --account-type <corrente|poupanca|pagamento> [--branch <agência>]` or on the dashboard (Configurações › PSP); until then use a test key (sk_test_…).',
  );
}

/** A live card payment in a store without a live card PSP: an operator or owner sets one up first. */
export function cardNotConfigured(): ApiError {
  return new ApiError(
    400,
    'provider_not_configured',
    'This store has no live card provider configured, so live keys cannot take card payments. An operator sets one up with `storefront card-provider set --store <store_id> --mode live --provider mercadopago|pagarme …` (or an owner on the dashboard, Configurações › Cartão de crédito); until then use a test key (sk_test_…), which takes simulated cards.',
  );
}
