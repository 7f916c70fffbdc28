import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import type {
  CardPayment,
  CardPaymentCreateParams,
  CardPaymentListParams,
  CardPaymentSimulate3dsParams,
  CardPaymentSimulateSettlementParams,
  InstallmentOptions,
  InstallmentOptionsParams,
} from '../types/card-payment.js';
import type { WithResponse } from '../types/shared.js';
import { APIResource } from './resource.js';

/** Card payments in installments, through the store's PSP: `/payments/card` (API 1.3.0). */
export class CardPayments extends APIResource {
  /**
   * Charges a card (201), answering the payment in whatever state the PSP left it: `approved` (with
   * its sale), `declined`, `requires_action` (send the buyer to `next_action.url`) or `processing`.
   * Reusing an `external_id` answers the existing payment (200) and charges nothing.
   * The service requires an `Idempotency-Key` here: pass one tied to your order
   * (`{ idempotencyKey: 'pedido-1042-card' }`), or the client generates one; either way the client's
   * own retry sends the same key, so the card is never charged twice.
   */
  async create(
    params: CardPaymentCreateParams,
    options?: RequestOptions,
  ): Promise<WithResponse<CardPayment>> {
    return this.core.request({ method: 'POST', path: '/payments/card', body: params, options });
  }

  /** Fetches a payment by its id (`card_…`). */
  async retrieve(id: string, options?: RequestOptions): Promise<CardPayment> {
    return this.core.request({ method: 'GET', path: path`/payments/card/${id}`, options });
  }

  list(params?: CardPaymentListParams, options?: RequestOptions): PagePromise<CardPayment> {
    return this.core.list('/payments/card', params, options);
  }

  /** The installment options the store offers for an amount (and, at Mercado Pago, the card's BIN). */
  async installments(
    params: InstallmentOptionsParams,
    options?: RequestOptions,
  ): Promise<InstallmentOptions> {
    return this.core.request({ method: 'GET', path: '/payments/card/installments', query: params, options });
  }

  /** Test keys only: the buyer passes or fails 3-D Secure on a `requires_action` payment. */
  async simulate3ds(
    id: string,
    params: CardPaymentSimulate3dsParams,
    options?: RequestOptions,
  ): Promise<CardPayment> {
    return this.core.request({
      method: 'POST',
      path: path`/payments/card/${id}/simulate_3ds`,
      body: params,
      options,
    });
  }

  /** Test keys only: the PSP decides a `processing` payment. */
  async simulateSettlement(
    id: string,
    params: CardPaymentSimulateSettlementParams,
    options?: RequestOptions,
  ): Promise<CardPayment> {
    return this.core.request({
      method: 'POST',
      path: path`/payments/card/${id}/simulate_settlement`,
      body: params,
      options,
    });
  }

  /** Test keys only: the buyer disputes an approved payment; its sale becomes `charged_back`. */
  async simulateChargeback(id: string, options?: RequestOptions): Promise<CardPayment> {
    return this.core.request({
      method: 'POST',
      path: path`/payments/card/${id}/simulate_chargeback`,
      options,
    });
  }
}
