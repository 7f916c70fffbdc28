import { validateCustomerDocument } from '../kernel/customer-document.js';

/**
 * The five kinds of Pix key the DICT registers: CPF, CNPJ (digits only), e-mail (at most 77
 * characters), phone (`+55…` in E.164) and random key (EVP, a lowercase UUID). Returns the key in the
 * form it is registered, or throws with what is wrong: a mistyped key would make every code unpayable.
 */
export function normalizePixKey(input: string): string {
  const key = input.trim();
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key)) return key.toLowerCase();
  if (/^\+[1-9][0-9]{7,14}$/.test(key)) return key;
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(key)) {
    if (key.length > 77) throw new Error('an e-mail Pix key has at most 77 characters');
    return key.toLowerCase();
  }
  if (/^[0-9]{11}$|^[0-9]{14}$/.test(key)) {
    const document = validateCustomerDocument(key);
    if (!document.valid) throw new Error(`not a valid CPF or CNPJ key: ${document.reason}`);
    return document.normalized;
  }
  throw new Error(
    'a Pix key is a CPF or CNPJ (digits only), an e-mail, a phone as +55… or a random key (UUID)',
  );
}
