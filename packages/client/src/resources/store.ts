import type { RequestOptions } from '../core/options.js';
import type { Store, StoreUpdateParams } from '../types/store.js';
import { APIResource } from './resource.js';

/** The API key's store: `/store` (API 1.2.0). */
export class StoreResource extends APIResource {
  async retrieve(options?: RequestOptions): Promise<Store> {
    return this.core.request({ method: 'GET', path: '/store', options });
  }

  /** Sends only the given fields (PATCH). The Meta access token is write-only. */
  async update(params: StoreUpdateParams, options?: RequestOptions): Promise<Store> {
    return this.core.request({ method: 'PATCH', path: '/store', body: params, options });
  }
}
