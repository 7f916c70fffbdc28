import type { CardDeclineCode } from '../../kernel/card-outcome.js';
import type { CardOutcome, CardRefundOutcome } from '../card-provider.js';
import { ProviderError } from '../provider-errors.js';
import type { MpPayment, MpRefund } from './mercadopago-types.js';

/** Mercado Pago's `status_detail` of a rejected payment → the normalised decline code. */
const DECLINES: Record<string, CardDeclineCode> = {
  cc_rejected_insufficient_amount: 'insufficient_funds',
  cc_rejected_bad_filled_security_code: 'invalid_cvv',
  cc_rejected_bad_filled_date: 'invalid_expiry',
  cc_rejected_bad_filled_card_number: 'invalid_number',
  cc_rejected_bad_filled_other: 'invalid_number',
  cc_rejected_call_for_authorize: 'call_issuer',
  cc_rejected_card_disabled: 'card_disabled',
  cc_rejected_high_risk: 'fraud_suspected',
  cc_rejected_blacklist: 'fraud_suspected',
  cc_rejected_fraud: 'fraud_suspected',
  cc_rejected_3ds_challenge: 'authentication_failed',
  cc_rejected_3ds_mandatory: 'authentication_failed',
  cc_rejected_duplicated_payment: 'duplicate',
  cc_rejected_max_attempts: 'max_attempts',
  cc_rejected_other_reason: 'issuer_declined',
};

/** A rejected payment's decline: any detail this table does not know is the issuer's plain refusal. */
export function declineOf(statusDetail: string | null): {
  code: CardDeclineCode;
  providerCode: string | null;
} {
  return { code: (statusDetail && DECLINES[statusDetail]) || 'issuer_declined', providerCode: statusDetail };
}

/**
 * A Mercado Pago payment as the port tells it. Its amounts are not read back: Mercado Pago charges
 * the interest itself, and the service keeps what it asked for.
 */
export function outcomeOf(payment: MpPayment): CardOutcome {
  if (
    !payment ||
    typeof payment !== 'object' ||
    (typeof payment.id !== 'number' && typeof payment.id !== 'string') ||
    typeof payment.status !== 'string'
  ) {
    throw new ProviderError('Mercado Pago answered with a payment without an id or a status.');
  }
  const detail = typeof payment.status_detail === 'string' ? payment.status_detail : null;
  const base = {
    pspId: String(payment.id),
    pspChargeId: null,
    card: cardOf(payment),
    authorizationCode: typeof payment.authorization_code === 'string' ? payment.authorization_code : null,
    decline: null,
    challenge: null,
  };
  switch (payment.status) {
    // In mediation, a dispute is open but the money is still the seller's until Mercado Pago says
    // `charged_back`.
    case 'approved':
    case 'in_mediation':
      return { ...base, status: 'approved' };
    case 'pending': {
      const info = payment.three_ds_info;
      if (
        detail === 'pending_challenge' &&
        typeof info?.external_resource_url === 'string' &&
        typeof info.creq === 'string'
      ) {
        return {
          ...base,
          status: 'requires_action',
          challenge: { url: info.external_resource_url, creq: info.creq },
        };
      }
      return { ...base, status: 'processing' };
    }
    // `authorized` is a reservation not yet captured; this service always captures, so it is on its way.
    case 'authorized':
    case 'in_process':
      return { ...base, status: 'processing' };
    case 'rejected':
      return { ...base, status: 'declined', decline: declineOf(detail) };
    // Mercado Pago cancels a payment that was never approved: one left pending past its expiry (a
    // challenge never answered, `expired`) or cancelled by the seller. No money moved and the issuer
    // refused nothing, so it is not the issuer's decline: the buyer may simply try again.
    case 'cancelled':
      return {
        ...base,
        status: 'declined',
        decline: { code: 'processing_error', providerCode: detail ?? 'cancelled' },
      };
    case 'refunded':
      return { ...base, status: 'refunded' };
    case 'charged_back':
      return { ...base, status: 'charged_back' };
    default:
      throw new ProviderError(
        `Mercado Pago answered with a payment in an unknown status (${payment.status.slice(0, 40)}).`,
      );
  }
}

function cardOf(payment: MpPayment): CardOutcome['card'] {
  const card = payment.card;
  const last4 = card?.last_four_digits;
  if (!card || typeof last4 !== 'string') return null;
  return {
    brand: typeof payment.payment_method_id === 'string' ? payment.payment_method_id : 'unknown',
    last4,
    expMonth: typeof card.expiration_month === 'number' ? card.expiration_month : null,
    expYear: typeof card.expiration_year === 'number' ? card.expiration_year : null,
  };
}

/** A refund's status: approved is done, in_process/pending/authorized still on its way, the rest failed. */
export function refundOutcomeOf(refund: MpRefund): CardRefundOutcome {
  if (!refund || typeof refund !== 'object' || typeof refund.status !== 'string') {
    throw new ProviderError('Mercado Pago answered a refund without a status.');
  }
  switch (refund.status) {
    case 'approved':
      return { status: 'succeeded', reason: null };
    case 'in_process':
    case 'pending':
    case 'authorized':
      return { status: 'pending', reason: null };
    default:
      return { status: 'failed', reason: `Mercado Pago ${refund.status} the refund.` };
  }
}
