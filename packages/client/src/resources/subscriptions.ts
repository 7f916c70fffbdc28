import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import type {
  CreatedSubscription,
  Subscription,
  SubscriptionCreateParams,
  SubscriptionListParams,
} from '../types/subscription.js';
import type { WithResponse } from '../types/shared.js';
import { APIResource } from './resource.js';

/** Subscriptions through Pix Automático: `/subscriptions` (API 1.2.0). */
export class Subscriptions extends APIResource {
  /**
   * Subscribes a buyer to a recurring product (201): the subscription is `pending` until the buyer
   * pays `first_charge`, whose one code pays the first cycle and authorises the rest.
   */
  async create(
    params: SubscriptionCreateParams,
    options?: RequestOptions,
  ): Promise<WithResponse<CreatedSubscription>> {
    return this.core.request({ method: 'POST', path: '/subscriptions', body: params, options });
  }

  async retrieve(id: string, options?: RequestOptions): Promise<Subscription> {
    return this.core.request({ method: 'GET', path: path`/subscriptions/${id}`, options });
  }

  list(params?: SubscriptionListParams, options?: RequestOptions): PagePromise<Subscription> {
    return this.core.list('/subscriptions', params, options);
  }

  /** Cancels it (reason `merchant`, `subscription.canceled`); live, at the PSP first. */
  async cancel(id: string, options?: RequestOptions): Promise<Subscription> {
    return this.core.request({ method: 'POST', path: path`/subscriptions/${id}/cancel`, options });
  }

  /** Test keys only: the next cycle is paid (a sale, `subscription.renewed`). */
  async simulateRenewal(id: string, options?: RequestOptions): Promise<Subscription> {
    return this.core.request({ method: 'POST', path: path`/subscriptions/${id}/simulate_renewal`, options });
  }

  /** Test keys only: an attempt at the next cycle fails (`past_due` with retries left, else `canceled`). */
  async simulateFailure(id: string, options?: RequestOptions): Promise<Subscription> {
    return this.core.request({ method: 'POST', path: path`/subscriptions/${id}/simulate_failure`, options });
  }

  /** Test keys only: the buyer revokes the authorisation at their bank (`canceled`, reason `buyer`). */
  async simulateBuyerCancel(id: string, options?: RequestOptions): Promise<Subscription> {
    return this.core.request({
      method: 'POST',
      path: path`/subscriptions/${id}/simulate_buyer_cancel`,
      options,
    });
  }
}
