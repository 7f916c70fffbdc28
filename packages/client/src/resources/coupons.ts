import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import type { Coupon, CouponCreateParams, CouponListParams, CouponUpdateParams } from '../types/coupon.js';
import { APIResource } from './resource.js';

/** Discount codes for purchase pages: `/coupons`. */
export class Coupons extends APIResource {
  async create(params: CouponCreateParams, options?: RequestOptions): Promise<Coupon> {
    return this.core.request({ method: 'POST', path: '/coupons', body: params, options });
  }

  async retrieve(id: string, options?: RequestOptions): Promise<Coupon> {
    return this.core.request({ method: 'GET', path: path`/coupons/${id}`, options });
  }

  /** Changes activity, limit, expiry or products; the code and the discount are fixed. */
  async update(id: string, params: CouponUpdateParams, options?: RequestOptions): Promise<Coupon> {
    return this.core.request({ method: 'PATCH', path: path`/coupons/${id}`, body: params, options });
  }

  list(params?: CouponListParams, options?: RequestOptions): PagePromise<Coupon> {
    return this.core.list('/coupons', params, options);
  }

  /** Makes the coupon inactive (idempotent): the page refuses it. */
  async archive(id: string, options?: RequestOptions): Promise<Coupon> {
    return this.core.request({ method: 'POST', path: path`/coupons/${id}/archive`, options });
  }
}
