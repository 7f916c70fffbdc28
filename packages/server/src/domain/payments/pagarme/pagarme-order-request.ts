import type { CardChargeRequest, CardPayer } from '../card-provider.js';
import type { PagarmeOrderRequest, PagarmePhone } from './pagarme-wire.js';

/** What Pagar.me prints on the card statement: 13 characters for PSP accounts. */
const STATEMENT_DESCRIPTOR_MAX = 13;

/**
 * The `POST /orders` body for one card payment: our id as `code`, the items (unit price in cents),
 * the buyer, and one `credit_card` payment of the total with interest in cents, its installments,
 * the single-use token of Pagar.me's page script, and the store's name for the statement.
 *
 * No `card.billing_address` is sent: the token does not carry one and the buyer gives us none, and
 * an address we made up would mislead Pagar.me's antifraud. An account whose antifraud requires an
 * address (Pagar.me asks for `customer.address` or the card's `billing_address`) refuses the order
 * with a 422 naming the field, which reaches the caller as a ProviderError.
 */
export function orderRequest(request: CardChargeRequest): PagarmeOrderRequest {
  const descriptor = statementDescriptor(request.statementDescriptor);
  return {
    code: request.paymentId,
    items: request.items.map((item) => ({
      amount: item.amountCents,
      description: item.description,
      quantity: item.quantity,
      code: item.code,
    })),
    customer: customer(request.payer),
    payments: [
      {
        payment_method: 'credit_card',
        amount: request.totalCents,
        credit_card: {
          installments: request.installments,
          ...(descriptor !== null && { statement_descriptor: descriptor }),
          card_token: request.token,
        },
      },
    ],
  };
}

function customer(payer: CardPayer): PagarmeOrderRequest['customer'] {
  const phone = payer.phone === null ? null : brazilianPhone(payer.phone);
  return {
    name: payer.name,
    email: payer.email,
    document: payer.document,
    document_type: payer.documentType,
    type: payer.documentType === 'CNPJ' ? 'company' : 'individual',
    ...(phone !== null && { phones: { mobile_phone: phone } }),
  };
}

/**
 * A Brazilian number split as Pagar.me wants it (`55`, the two-digit DDD, the rest): `+55 21
 * 99999-8888`, `5521999998888` or `21999998888`. A foreign number is left out, since its area code
 * cannot be told apart from the number without that country's plan.
 */
export function brazilianPhone(phone: string): PagarmePhone | null {
  const international = phone.trim().startsWith('+');
  let digits = phone.replace(/\D/g, '');
  if (international || digits.length > 11) {
    if (!digits.startsWith('55')) return null;
    digits = digits.slice(2);
  }
  if (digits.length !== 10 && digits.length !== 11) return null;
  return { country_code: '55', area_code: digits.slice(0, 2), number: digits.slice(2) };
}

/**
 * The store's name as the statement shows it: accents dropped, only letters, digits and spaces
 * (Pagar.me refuses other characters), cut to 13; null when nothing is left, and Pagar.me then
 * prints the account's own descriptor.
 */
export function statementDescriptor(storeName: string): string | null {
  const cleaned = storeName
    .normalize('NFD')
    .replace(/[^A-Za-z0-9 ]/g, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, STATEMENT_DESCRIPTOR_MAX)
    .trim();
  return cleaned === '' ? null : cleaned;
}
