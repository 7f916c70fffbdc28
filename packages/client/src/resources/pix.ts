import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import type { PixCharge, PixChargeCreateParams, PixChargeListParams } from '../types/pix.js';
import type { WithResponse } from '../types/shared.js';
import { APIResource } from './resource.js';

/** Pix charges: `/payments/pix`. */
export class Pix extends APIResource {
  /**
   * Creates a charge (201); reusing an `external_id` returns the existing charge instead (200), and
   * when what you sent differs from it, `lastResponse.headers['external-id-mismatch']` names the
   * fields (`amount`, `description`, `customer`, `metadata`, `product_id`).
   */
  async create(params: PixChargeCreateParams, options?: RequestOptions): Promise<WithResponse<PixCharge>> {
    return this.core.request({ method: 'POST', path: '/payments/pix', body: params, options });
  }

  /** Fetches a charge by its service id (`pix_…`). */
  async retrieve(id: string, options?: RequestOptions): Promise<PixCharge> {
    return this.core.request({ method: 'GET', path: path`/payments/pix/${id}`, options });
  }

  /** Fetches a charge by the `external_id` you gave it. */
  async retrieveByExternalId(externalId: string, options?: RequestOptions): Promise<PixCharge> {
    return this.core.request({ method: 'GET', path: path`/payments/pix/external/${externalId}`, options });
  }

  list(params?: PixChargeListParams, options?: RequestOptions): PagePromise<PixCharge> {
    return this.core.list('/payments/pix', params, options);
  }

  /**
   * Cancels a pending charge (API 1.1.0): `status` becomes `canceled` with `canceled_at`, and
   * `pix.canceled` is emitted. Live, the PSP removes the charge first; a charge the payer already paid
   * (or an expired or canceled one) is a `BadRequestError`.
   */
  async cancel(id: string, options?: RequestOptions): Promise<PixCharge> {
    return this.core.request({ method: 'POST', path: path`/payments/pix/${id}/cancel`, options });
  }

  /** Test keys only: pays a pending charge, creating its sale and the `pix.paid` and `sale.approved` events. */
  async simulatePayment(id: string, options?: RequestOptions): Promise<PixCharge> {
    return this.core.request({ method: 'POST', path: path`/payments/pix/${id}/simulate_payment`, options });
  }

  /** Test keys only: a pending charge expires at once, with its `pix.expired` event. */
  async simulateExpiration(id: string, options?: RequestOptions): Promise<PixCharge> {
    return this.core.request({
      method: 'POST',
      path: path`/payments/pix/${id}/simulate_expiration`,
      options,
    });
  }
}
