import { resolveConfig, type ClientOptions } from './core/options.js';
import { RequestCore } from './core/request.js';
import { Analytics } from './resources/analytics.js';
import { CardPayments } from './resources/card-payments.js';
import { Checkouts } from './resources/checkouts.js';
import { Coupons } from './resources/coupons.js';
import { Events } from './resources/events.js';
import { Orders } from './resources/orders.js';
import { Pix } from './resources/pix.js';
import { Products } from './resources/products.js';
import { Sales } from './resources/sales.js';
import { StoreResource } from './resources/store.js';
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
  readonly cardPayments: CardPayments;
  readonly sales: Sales;
  readonly subscriptions: Subscriptions;
  readonly products: Products;
  readonly checkouts: Checkouts;
  readonly coupons: Coupons;
  readonly orders: Orders;
  readonly store: StoreResource;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly events: Events;
  readonly analytics: Analytics;

  constructor(options: ClientOptions) {
    const core = new RequestCore(resolveConfig(options));
    this.pix = new Pix(core);
    this.cardPayments = new CardPayments(core);
    this.sales = new Sales(core);
    this.subscriptions = new Subscriptions(core);
    this.products = new Products(core);
    this.checkouts = new Checkouts(core);
    this.coupons = new Coupons(core);
    this.orders = new Orders(core);
    this.store = new StoreResource(core);
    this.webhookEndpoints = new WebhookEndpoints(core);
    this.events = new Events(core);
    this.analytics = new Analytics(core);
  }
}
