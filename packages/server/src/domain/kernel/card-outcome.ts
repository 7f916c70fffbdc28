/**
 * The words a card payment's outcome is told in, shared by the payment port (each PSP adapter maps
 * its own codes onto them) and the `card_payment` resource that stores and answers them.
 */

/** Where a card payment stands. */
export const CARD_PAYMENT_STATUSES = [
  'requires_action',
  'processing',
  'approved',
  'declined',
  'refunded',
] as const;
export type CardPaymentStatus = (typeof CARD_PAYMENT_STATUSES)[number];

/** Normalised decline codes: every PSP's own code maps onto one; the PSP's is kept as `provider_code`. */
export const CARD_DECLINE_CODES = [
  'insufficient_funds',
  'invalid_cvv',
  'invalid_expiry',
  'invalid_number',
  'call_issuer',
  'card_disabled',
  'fraud_suspected',
  'authentication_failed',
  'duplicate',
  'max_attempts',
  'issuer_declined',
  'processing_error',
] as const;
export type CardDeclineCode = (typeof CARD_DECLINE_CODES)[number];

export function isCardDeclineCode(value: string): value is CardDeclineCode {
  return (CARD_DECLINE_CODES as readonly string[]).includes(value);
}

/** What the buyer reads on the page for each decline, in plain Portuguese. */
export const DECLINE_MESSAGES_PT: Record<CardDeclineCode, string> = {
  insufficient_funds: 'O cartão não tem limite suficiente para esta compra.',
  invalid_cvv: 'O código de segurança (CVV) não confere.',
  invalid_expiry: 'A validade do cartão não confere.',
  invalid_number: 'O número do cartão não é válido.',
  call_issuer: 'O banco emissor pediu que você entre em contato com ele para autorizar a compra.',
  card_disabled: 'Este cartão está bloqueado ou inativo.',
  fraud_suspected: 'O banco emissor recusou a compra por segurança.',
  authentication_failed: 'A autenticação do cartão (3-D Secure) não foi concluída.',
  duplicate: 'Uma compra igual acabou de ser feita com este cartão.',
  max_attempts: 'O cartão atingiu o limite de tentativas. Tente mais tarde ou use outro meio.',
  issuer_declined: 'O banco emissor recusou a compra.',
  processing_error: 'Não foi possível processar o cartão agora. Tente de novo em instantes.',
};

/** What the API's `decline.message` says for each code, in English like the rest of the API. */
export const DECLINE_MESSAGES: Record<CardDeclineCode, string> = {
  insufficient_funds: 'The card has insufficient funds or limit.',
  invalid_cvv: 'The security code (CVV) is invalid.',
  invalid_expiry: 'The expiry date is invalid.',
  invalid_number: 'The card number is invalid.',
  call_issuer: 'The issuer asks the cardholder to call it to authorise the payment.',
  card_disabled: 'The card is disabled or inactive.',
  fraud_suspected: 'The issuer declined the payment as suspected fraud.',
  authentication_failed: 'The cardholder did not complete 3-D Secure authentication.',
  duplicate: 'A duplicate payment was made with this card moments ago.',
  max_attempts: 'The card reached its maximum number of attempts.',
  issuer_declined: 'The issuer declined the payment.',
  processing_error: 'The payment could not be processed; try again.',
};
