import { resolveConfig, type ClientOptions } from './core/options.js';
import { RequestCore } from './core/request.js';
import { Checkouts } from './resources/checkouts.js';
import { Coupons } from './resources/coupons.js';
import { Events } from './resources/events.js';
import { Pix } from './resources/pix.js';
import { Products } from './resources/products.js';
import { Sales } from './resources/sales.js';
import { Subscriptions } from './resources/subscriptions.js';
import { WebhookEndpoints } from './resources/webhook-endpoints.js';

/**
 * The Storefront API client.
 *
 * ```ts
 * const storefront = new Storefront({ apiKey: process.env.STOREFRONT_API_KEY!, baseUrl: 'https://shop.example.com' });
 * const charge = await storefront.pix.create({ amount: 49.9 });
 * ```
 */
export class Storefront {
  readonly pix: Pix;
  readonly sales: Sales;
  readonly subscriptions: Subscriptions;
  readonly products: Products;
  readonly checkouts: Checkouts;
  readonly coupons: Coupons;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly events: Events;

  constructor(options: ClientOptions) {
    const core = new RequestCore(resolveConfig(options));
    this.pix = new Pix(core);
    this.sales = new Sales(core);
    this.subscriptions = new Subscriptions(core);
    this.products = new Products(core);
    this.checkouts = new Checkouts(core);
    this.coupons = new Coupons(core);
    this.webhookEndpoints = new WebhookEndpoints(core);
    this.events = new Events(core);
  }
}
