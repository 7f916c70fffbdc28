import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { invalidRequest } from '../../platform/http/api-error.js';
import { VISIBLE_TEXT_PATTERN } from '../../platform/http/text-patterns.js';
import { validateCustomerDocument } from './customer-document.js';

/** Who pays, as sent on a Pix charge and carried to its sale. */
export const Customer = Type.Object(
  {
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        pattern: VISIBLE_TEXT_PATTERN,
        description: "The payer's name (API 1.1.0), sent to a live PSP with the document.",
        example: 'Maria da Silva',
      }),
    ),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    whatsapp: Type.Optional(
      Type.String({
        pattern: '^\\+?[0-9]{10,15}$',
        'x-pattern-message': 'must be 10 to 15 digits with an optional leading +',
        description: 'Digits with an optional leading +, 10-15 digits (E.164 or DDD + number).',
        example: '+5511987654321',
      }),
    ),
    document: Type.Optional(
      Type.String({
        minLength: 11,
        maxLength: 18,
        description: 'CPF or CNPJ, bare or masked, checked by its check digits; answered bare.',
        example: '123.456.789-09',
      }),
    ),
  },
  { additionalProperties: false },
);

export type Customer = Static<typeof Customer>;

/**
 * Check digits are beyond JSON Schema, so they are checked here, after the schema. The document is
 * kept bare and upper-case (`12345678909`), the one form that compares and searches reliably.
 */
export function normalizeCustomer(customer: Customer): Customer {
  if (customer.document === undefined) return customer;
  const result = validateCustomerDocument(customer.document);
  if (!result.valid) {
    throw invalidRequest(
      `customer.document is not a valid CPF or CNPJ: ${result.reason}.`,
      'customer.document',
    );
  }
  return { ...customer, document: result.normalized };
}
