import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import type { Order, OrderListParams } from '../types/order.js';
import { APIResource } from './resource.js';

/** Purchase-page orders: `/orders` (API 1.2.0). */
export class Orders extends APIResource {
  list(params?: OrderListParams, options?: RequestOptions): PagePromise<Order> {
    return this.core.list('/orders', params, options);
  }

  async retrieve(id: string, options?: RequestOptions): Promise<Order> {
    return this.core.request({ method: 'GET', path: path`/orders/${id}`, options });
  }

  /**
   * Test keys only: a pending order is abandoned at once (`order.abandoned`), and its recovery
   * e-mail, when the store has it on, is sent at once.
   */
  async simulateAbandonment(id: string, options?: RequestOptions): Promise<Order> {
    return this.core.request({ method: 'POST', path: path`/orders/${id}/simulate_abandonment`, options });
  }
}
