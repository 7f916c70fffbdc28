import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { validatorCompiler } from '../../platform/http/validation.js';
import { Customer } from '../kernel/customer.js';
import { validateCustomerDocument } from '../kernel/customer-document.js';

/** What the purchase page's form sends; bounds here only keep junk out, the rules are below. */
export const OrderBody = Type.Object(
  {
    name: Type.String({ maxLength: 1000 }),
    email: Type.String({ maxLength: 1000 }),
    document: Type.String({ maxLength: 100 }),
    whatsapp: Type.Optional(Type.String({ maxLength: 100 })),
    bump: Type.Boolean(),
    coupon: Type.Optional(Type.String({ maxLength: 100 })),
    /** The page URL's parameters; the server keeps the campaign ones (`cleanTracking`). */
    tracking: Type.Optional(
      Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 2000 }), { maxProperties: 30 }),
    ),
  },
  { additionalProperties: false },
);
export type OrderBody = Static<typeof OrderBody>;

export type BuyerField = 'name' | 'email' | 'document' | 'whatsapp';

/** Each field's message, in the buyer's language, shown next to the field. */
const MESSAGES: Record<BuyerField, string> = {
  name: 'Informe seu nome completo.',
  email: 'Informe um e-mail válido, como nome@exemplo.com.',
  document: 'Informe um CPF ou CNPJ válido.',
  whatsapp: 'Informe o WhatsApp com DDD, como (11) 98765-4321.',
};

/** The buyer's fields are checked against the API's own Customer schema, one field at a time. */
const checkCustomer = validatorCompiler({
  schema: Customer,
  method: 'POST',
  url: '/p',
  httpPart: 'body',
}) as (value: unknown) => boolean;

export type BuyerResult =
  | { ok: true; customer: Required<Pick<Customer, 'name' | 'email' | 'document'>> & Customer }
  | { ok: false; errors: Partial<Record<BuyerField, string>> };

/**
 * Checks and normalizes the buyer as the server sees it, whatever the browser did: every field's
 * problem at once, so the page can show each next to its field. The document comes back bare
 * (check digits verified), the WhatsApp number as digits with a +55 country code when it had none.
 */
export function checkBuyer(body: OrderBody): BuyerResult {
  const errors: Partial<Record<BuyerField, string>> = {};
  const name = body.name.trim().replace(/\s+/g, ' ');
  const email = body.email.trim();
  const whatsappDigits = (body.whatsapp ?? '').replace(/[\s().-]/g, '');
  const whatsapp = whatsappDigits === '' ? undefined : normalizeWhatsapp(whatsappDigits);
  const document = validateCustomerDocument(body.document);

  const fields: [BuyerField, string | undefined][] = [
    ['name', name],
    ['email', email],
    ['whatsapp', whatsapp],
  ];
  for (const [field, value] of fields) {
    if (value === undefined) continue;
    if (value === '' || !checkCustomer({ [field]: value })) errors[field] = MESSAGES[field];
  }
  if (!document.valid) errors.document = MESSAGES.document;
  if (Object.keys(errors).length > 0 || !document.valid) return { ok: false, errors };
  return {
    ok: true,
    customer: { name, email, document: document.normalized, ...(whatsapp !== undefined && { whatsapp }) },
  };
}

/** Brazilian numbers are typed with the DDD and without the country code: 11987654321 → +5511987654321. */
function normalizeWhatsapp(digits: string): string {
  if (digits.startsWith('+')) return digits;
  return /^\d{10,11}$/.test(digits) ? `+55${digits}` : digits;
}
