import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import type { Sale, SaleListParams } from '../types/sale.js';
import { APIResource } from './resource.js';

/** Sales: `/sales`. */
export class Sales extends APIResource {
  list(params?: SaleListParams, options?: RequestOptions): PagePromise<Sale> {
    return this.core.list('/sales', params, options);
  }

  async retrieve(id: string, options?: RequestOptions): Promise<Sale> {
    return this.core.request({ method: 'GET', path: path`/sales/${id}`, options });
  }

  /** Refunds an approved sale (simulated in test mode) and emits `sale.refunded`. */
  async refund(id: string, options?: RequestOptions): Promise<Sale> {
    return this.core.request({ method: 'POST', path: path`/sales/${id}/refund`, options });
  }

  /**
   * Queues the sale's delivery e-mail again (API 1.1.0): answers the sale with `delivery_email.status`
   * `pending`; a 400 when the customer has no e-mail, the sale is refunded or the service has no SMTP.
   */
  async resendDeliveryEmail(id: string, options?: RequestOptions): Promise<Sale> {
    return this.core.request({ method: 'POST', path: path`/sales/${id}/resend_delivery_email`, options });
  }
}
