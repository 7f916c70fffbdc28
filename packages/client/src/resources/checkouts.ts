import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import type {
  Checkout,
  CheckoutCreateParams,
  CheckoutListParams,
  CheckoutUpdateParams,
} from '../types/checkout.js';
import { APIResource } from './resource.js';

/** Purchase-page configurations: `/checkouts`. */
export class Checkouts extends APIResource {
  async create(params: CheckoutCreateParams, options?: RequestOptions): Promise<Checkout> {
    return this.core.request({ method: 'POST', path: '/checkouts', body: params, options });
  }

  async retrieve(id: string, options?: RequestOptions): Promise<Checkout> {
    return this.core.request({ method: 'GET', path: path`/checkouts/${id}`, options });
  }

  list(params?: CheckoutListParams, options?: RequestOptions): PagePromise<Checkout> {
    return this.core.list('/checkouts', params, options);
  }

  /** Archives a checkout; its products fall back to the default one. The default cannot be archived. */
  async archive(id: string, options?: RequestOptions): Promise<Checkout> {
    return this.core.request({ method: 'POST', path: path`/checkouts/${id}/archive`, options });
  }

  /** Changes the name or any settings keys, the default checkout included. */
  async update(id: string, params: CheckoutUpdateParams, options?: RequestOptions): Promise<Checkout> {
    return this.core.request({ method: 'PATCH', path: path`/checkouts/${id}`, body: params, options });
  }

  /** Makes an archived checkout usable again (idempotent). */
  async unarchive(id: string, options?: RequestOptions): Promise<Checkout> {
    return this.core.request({ method: 'POST', path: path`/checkouts/${id}/unarchive`, options });
  }
}
