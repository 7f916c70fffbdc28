import type { CardDeclineCode } from '../../kernel/card-outcome.js';
import type { CardOutcome, CardRefundOutcome } from '../card-provider.js';
import { ProviderError } from '../provider-errors.js';
import type { PagarmeCharge, PagarmeOrder, PagarmeTransaction } from './pagarme-wire.js';

/**
 * Where a Pagar.me order stands, in the port's words. The charge says the most (a refunded or
 * charged-back charge sits in a `paid` order), so it is read first and the order's own status
 * decides only what the charge leaves open. Pagar.me has no 3-D Secure challenge in this
 * integration, so nothing is ever `requires_action`.
 */
export function orderOutcome(order: PagarmeOrder): CardOutcome {
  if (typeof order.id !== 'string' || order.id === '') {
    throw new ProviderError('Pagar.me answered an order without an id.');
  }
  const charge = order.charges?.[0];
  if (typeof charge?.id !== 'string' || charge.id === '') {
    throw new ProviderError(`Pagar.me answered order ${order.id} without a charge.`);
  }
  const transaction = charge.last_transaction ?? null;
  const status = statusOf(order, charge);
  const card = transaction?.card;
  return {
    pspId: order.id,
    pspChargeId: charge.id,
    status,
    decline: status === 'declined' ? declineOf(transaction) : null,
    card:
      typeof card?.brand === 'string' && typeof card.last_four_digits === 'string'
        ? {
            brand: card.brand.toLowerCase(),
            last4: card.last_four_digits,
            expMonth: card.exp_month ?? null,
            expYear: card.exp_year ?? null,
          }
        : null,
    authorizationCode: status === 'declined' ? null : (transaction?.acquirer_auth_code ?? null),
    challenge: null,
  };
}

function statusOf(order: PagarmeOrder, charge: PagarmeCharge): CardOutcome['status'] {
  switch (charge.status) {
    case 'chargedback':
      return 'charged_back';
    // A card charge is only cancelled after it was authorised: `DELETE /charges` refunds it.
    case 'canceled':
    case 'refunded':
      return 'refunded';
    case 'paid':
    case 'overpaid':
      return 'approved';
    case 'failed':
      return 'declined';
    case 'pending':
    case 'processing':
      return 'processing';
  }
  switch (order.status) {
    case 'paid':
      return 'approved';
    case 'failed':
    case 'canceled':
      return 'declined';
    case 'pending':
      return 'processing';
  }
  throw new ProviderError(
    `Pagar.me answered order ${order.id} with an unknown status (order ${String(order.status)}, charge ${String(charge.status)}).`,
  );
}

/** ABECS return codes (what Brazilian acquirers answer) onto the port's decline codes. */
const ABECS: Record<string, CardDeclineCode> = {
  '51': 'insufficient_funds',
  '82': 'invalid_cvv',
  N7: 'invalid_cvv',
  '54': 'invalid_expiry',
  '14': 'invalid_number',
  '01': 'call_issuer',
  '02': 'call_issuer',
  '57': 'card_disabled',
  '62': 'card_disabled',
  '78': 'card_disabled',
  '59': 'fraud_suspected',
  '63': 'fraud_suspected',
  '75': 'max_attempts',
};

/**
 * Why a charge failed: Pagar.me's antifraud refused it (`antifraud_response.status` `reproved`),
 * the issuer declined it (`acquirer_return_code`, an ABECS code, kept as the provider code), or
 * the gateway could not process it (`gateway_response.code`, e.g. an expired or reused token).
 */
export function declineOf(transaction: PagarmeTransaction | null): NonNullable<CardOutcome['decline']> {
  const antifraud = transaction?.antifraud_response;
  if (antifraud?.status === 'reproved') {
    return {
      code: 'fraud_suspected',
      providerCode: antifraud.return_code ? `antifraud:${antifraud.return_code}` : 'antifraud',
    };
  }
  const returnCode = transaction?.acquirer_return_code?.trim().toUpperCase();
  if (returnCode) {
    const abecs = /^\d$/.test(returnCode) ? returnCode.padStart(2, '0') : returnCode;
    return { code: ABECS[abecs] ?? 'issuer_declined', providerCode: returnCode };
  }
  const gatewayCode = transaction?.gateway_response?.code ?? null;
  if (
    transaction?.status === 'failed' ||
    transaction?.status === 'with_error' ||
    (gatewayCode !== null && !gatewayCode.startsWith('2'))
  ) {
    return { code: 'processing_error', providerCode: gatewayCode ?? transaction?.status ?? null };
  }
  return { code: 'issuer_declined', providerCode: transaction?.status ?? null };
}

/**
 * What `DELETE /charges/{id}` did: a cancelled charge (or a refunded or voided transaction, for a
 * part of it) is refunded; `waiting_cancellation` is on its way; anything else did not happen.
 */
export function refundOutcome(charge: PagarmeCharge): CardRefundOutcome {
  const transaction = charge.last_transaction ?? null;
  if (charge.status === 'canceled' || charge.status === 'refunded')
    return { status: 'succeeded', reason: null };
  switch (transaction?.status) {
    case 'refunded':
    case 'voided':
    case 'partial_refunded':
    case 'partial_void':
      return { status: 'succeeded', reason: null };
    case 'waiting_cancellation':
      return { status: 'pending', reason: null };
  }
  if (charge.status === 'processing' || charge.status === 'pending')
    return { status: 'pending', reason: null };
  const gatewayErrors = (transaction?.gateway_response?.errors ?? [])
    .map((error) => error.message)
    .filter((message): message is string => typeof message === 'string');
  const reason =
    gatewayErrors.join('; ') ||
    transaction?.acquirer_message ||
    `Pagar.me left the charge ${String(charge.status)} (transaction ${String(transaction?.status)})`;
  return { status: 'failed', reason };
}
