import type { RequestOptions } from '../core/options.js';
import type { PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import type {
  Product,
  ProductCreateParams,
  ProductListParams,
  ProductUpdateParams,
} from '../types/product.js';
import { APIResource } from './resource.js';

/** The catalogue: `/products`. */
export class Products extends APIResource {
  async create(params: ProductCreateParams, options?: RequestOptions): Promise<Product> {
    return this.core.request({ method: 'POST', path: '/products', body: params, options });
  }

  async retrieve(id: string, options?: RequestOptions): Promise<Product> {
    return this.core.request({ method: 'GET', path: path`/products/${id}`, options });
  }

  /** Sends only the given fields (PATCH); `{ ativo: true }` reactivates an archived product. */
  async update(id: string, params: ProductUpdateParams, options?: RequestOptions): Promise<Product> {
    return this.core.request({ method: 'PATCH', path: path`/products/${id}`, body: params, options });
  }

  list(params?: ProductListParams, options?: RequestOptions): PagePromise<Product> {
    return this.core.list('/products', params, options);
  }

  /** Sets `ativo` to false; the product still exists. */
  async archive(id: string, options?: RequestOptions): Promise<Product> {
    return this.core.request({ method: 'POST', path: path`/products/${id}/archive`, options });
  }
}
