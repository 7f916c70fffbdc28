/**
 * The parts of Mercado Pago's Checkout API (`/v1/payments`, refunds, installments) this service sends
 * and reads. Amounts are reais as JSON numbers (`100.5`), never cents.
 */

export interface MpPaymentRequest {
  transaction_amount: number;
  installments: number;
  token: string;
  /** The brand: `visa`, `master`, `elo`, `amex`, `hipercard`… */
  payment_method_id?: string;
  issuer_id?: number | string;
  payer: {
    email: string;
    first_name: string;
    identification: { type: 'CPF' | 'CNPJ'; number: string };
  };
  external_reference: string;
  notification_url?: string;
  /** `optional`: Mercado Pago asks for a challenge only when the issuer wants one. */
  three_d_secure_mode: 'not_supported' | 'optional' | 'mandatory';
  statement_descriptor: string;
  description?: string;
}

export interface MpPayment {
  id: number | string;
  /** `pending`, `approved`, `authorized`, `in_process`, `in_mediation`, `rejected`, `cancelled`, `refunded`, `charged_back`. */
  status: string;
  /** `accredited`, `pending_challenge`, `cc_rejected_insufficient_amount`… */
  status_detail?: string | null;
  transaction_amount?: number;
  installments?: number;
  payment_method_id?: string | null;
  authorization_code?: string | null;
  external_reference?: string | null;
  card?: {
    first_six_digits?: string | null;
    last_four_digits?: string | null;
    expiration_month?: number | null;
    expiration_year?: number | null;
  } | null;
  three_ds_info?: { external_resource_url?: string; creq?: string } | null;
}

export interface MpRefund {
  id: number | string;
  payment_id?: number | string;
  amount?: number;
  /** `approved`, `in_process`, `rejected`, `cancelled`, `authorized`. */
  status: string;
}

export interface MpPayerCost {
  installments: number;
  /** Percent of interest over the amount; 0 when the seller absorbs it (sem juros). */
  installment_rate: number;
  installment_amount: number;
  total_amount: number;
}

export interface MpInstallments {
  payment_method_id: string;
  payment_type_id: string;
  payer_costs: MpPayerCost[];
}
