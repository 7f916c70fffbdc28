/**
 * The parts of Pagar.me's Core API v5 objects this adapter reads and writes (field names as on the
 * wire). Everything Pagar.me answers is optional here: an answer is checked where it is read.
 */

export interface PagarmePhone {
  country_code: string;
  area_code: string;
  number: string;
}

export interface PagarmeOrderRequest {
  /** Our own id: Pagar.me keeps it and shows it in its dashboard. */
  code: string;
  items: Array<{ amount: number; description: string; quantity: number; code: string }>;
  customer: {
    name: string;
    email: string;
    document: string;
    document_type: 'CPF' | 'CNPJ';
    type: 'individual' | 'company';
    phones?: { mobile_phone: PagarmePhone };
  };
  payments: Array<{
    payment_method: 'credit_card';
    /** Cents, interest included. */
    amount: number;
    credit_card: {
      installments: number;
      statement_descriptor?: string;
      card_token: string;
    };
  }>;
}

export interface PagarmeCard {
  brand?: string | null;
  last_four_digits?: string | null;
  exp_month?: number | null;
  exp_year?: number | null;
}

export interface PagarmeTransaction {
  id?: string;
  /** captured, not_authorized, failed, with_error, refunded, voided, waiting_cancellation… */
  status?: string | null;
  success?: boolean | null;
  acquirer_return_code?: string | null;
  acquirer_message?: string | null;
  acquirer_auth_code?: string | null;
  card?: PagarmeCard | null;
  gateway_response?: { code?: string | null; errors?: Array<{ message?: string }> | null } | null;
  antifraud_response?: {
    status?: string | null;
    return_code?: string | null;
    return_message?: string | null;
  } | null;
}

export interface PagarmeCharge {
  id?: string;
  /** pending, processing, paid, failed, canceled, chargedback, overpaid, underpaid. */
  status?: string | null;
  amount?: number | null;
  last_transaction?: PagarmeTransaction | null;
  order?: { id?: string } | null;
}

export interface PagarmeOrder {
  id?: string;
  code?: string | null;
  /** pending, paid, failed, canceled. */
  status?: string | null;
  charges?: PagarmeCharge[] | null;
}
