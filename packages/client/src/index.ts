export { Storefront } from './client.js';
export { VERSION } from './version.js';
export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './core/options.js';
export type { ClientOptions, RequestOptions } from './core/options.js';
export { MAX_RETRY_AFTER_SECONDS } from './core/retry.js';
export { Page, PagePromise } from './core/pagination.js';
export {
  APIError,
  AuthenticationError,
  isApiError,
  isTimeout,
  NetworkError,
  NotFoundError,
  RateLimitError,
  ServerError,
  StorefrontError,
  TimeoutError,
  ValidationError,
} from './core/errors.js';
export { Analytics } from './resources/analytics.js';
export { CardPayments } from './resources/card-payments.js';
export { Checkouts } from './resources/checkouts.js';
export { Coupons } from './resources/coupons.js';
export { Events } from './resources/events.js';
export { Orders } from './resources/orders.js';
export { Pix } from './resources/pix.js';
export { Products } from './resources/products.js';
export { Sales } from './resources/sales.js';
export { StoreResource } from './resources/store.js';
export { Subscriptions } from './resources/subscriptions.js';
export { WebhookEndpoints } from './resources/webhook-endpoints.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhook,
  WebhookVerificationError,
  type VerifyWebhookParams,
  type WebhookVerificationReason,
} from './webhooks/verify.js';
export { generateTestHeader, SIGNATURE_HEADER, type TestHeaderParams } from './webhooks/signature.js';
export type { WebhookHeaders } from './webhooks/headers.js';
export type * from './types/analytics.js';
export type * from './types/card-payment.js';
export type * from './types/checkout.js';
export type * from './types/coupon.js';
export type * from './types/event.js';
export type * from './types/order.js';
export type * from './types/pix.js';
export type * from './types/product.js';
export type * from './types/sale.js';
export type * from './types/shared.js';
export type * from './types/store.js';
export type * from './types/subscription.js';
export type * from './types/webhook-endpoint.js';
